internal import CSodium

/// An X25519 key pair for `crypto_box`, made for one connection and wiped when
/// it ends: the agent's half of oidc-agent's key exchange.
public final class BoxKeyPair: @unchecked Sendable {
    public static let publicKeyBytes = Int(LR_BOX_PUBLICKEYBYTES)
    public let publicKey: [UInt8]
    // Private to this object, written once; wiped in deinit.
    fileprivate var secretKey: [UInt8]

    public init() throws(SodiumError) {
        let lib = try LibSodium.loaded()
        var pk = [UInt8](repeating: 0, count: Int(LR_BOX_PUBLICKEYBYTES))
        var sk = [UInt8](repeating: 0, count: Int(LR_BOX_SECRETKEYBYTES))
        guard lr_box_keypair(lib.keypair, &pk, &sk) == 0 else { throw .unavailable("crypto_box_keypair failed") }
        publicKey = pk
        secretKey = sk
    }

    deinit {
        if case .success(let lib) = LibSodium.shared {
            secretKey.withUnsafeMutableBytes { lr_memzero(lib.memzero, $0.baseAddress, $0.count) }
        }
    }

    /// `crypto_box_easy`: `message` for the holder of `peer`'s secret key, under `nonce` (24 bytes, never reused
    /// with this pair and peer): the MAC then the ciphertext.
    public func seal(_ message: [UInt8], nonce: [UInt8], to peer: [UInt8]) throws(SodiumError) -> [UInt8] {
        let lib = try LibSodium.loaded()
        try Self.check(nonce: nonce, peer: peer)
        var box = [UInt8](repeating: 0, count: message.count + Int(LR_BOX_MACBYTES))
        let r = lr_box_easy(lib.seal, &box, message, UInt64(message.count), nonce, peer, secretKey)
        guard r == 0 else { throw .malformed("crypto_box_easy failed") }
        return box
    }

    /// `crypto_box_open_easy`: the message in `box` from the holder of `peer`'s secret key, if it is intact.
    public func open(_ box: [UInt8], nonce: [UInt8], from peer: [UInt8]) throws(SodiumError) -> [UInt8] {
        let lib = try LibSodium.loaded()
        try Self.check(nonce: nonce, peer: peer)
        guard box.count >= Int(LR_BOX_MACBYTES) else { throw .malformed("the box is shorter than its MAC") }
        var message = [UInt8](repeating: 0, count: box.count - Int(LR_BOX_MACBYTES))
        let r = lr_box_open_easy(lib.open, &message, box, UInt64(box.count), nonce, peer, secretKey)
        guard r == 0 else { throw .malformed("the box does not open with this connection's keys") }
        return message
    }

    public static let nonceBytes = Int(LR_BOX_NONCEBYTES)

    private static func check(nonce: [UInt8], peer: [UInt8]) throws(SodiumError) {
        guard nonce.count == Int(LR_BOX_NONCEBYTES) else { throw .malformed("a nonce is \(LR_BOX_NONCEBYTES) bytes") }
        guard peer.count == Int(LR_BOX_PUBLICKEYBYTES) else {
            throw .malformed("a public key is \(LR_BOX_PUBLICKEYBYTES) bytes")
        }
    }
}
