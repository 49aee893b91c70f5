import Glibc
import LinkRouterCore
import OpenSSLKit
import SystemKit

/// Where a stop sets aside the sets the keyring did not take (`SetAside` decides; `Effect.setAside`):
/// `$XDG_RUNTIME_DIR/linkrouter/unsaved/`, a 0700 directory of 0600 files, one per account, named by the SHA-256 of
/// its key (no account name or issuer reaches a file name). The runtime directory is the user's own and
/// memory-backed (gone at reboot), and already holds pending logins' codes, verifiers and DPoP keys. A file is a
/// header line, the account's qualified name, its issuer, and the set as the keyring keeps it (`StoredTokens`).
struct SetAsideFiles {
    let directory: String

    static let header = "linkrouter-unsaved 1"

    func keep(_ key: AccountKey, _ tokens: TokenSet) throws(SystemError) {
        try FileSystem.makeDirectories(directory, permissions: 0o700)
        let text = [Self.header, key.qualifiedName, key.issuer, StoredTokens.encode(tokens)].joined(separator: "\n")
        try FileSystem.writeAtomically(try path(key), text: text, permissions: 0o600)
    }

    func drop(_ key: AccountKey) throws(SystemError) {
        let file = try path(key)
        if FileSystem.status(file) != nil { try FileSystem.remove(file) }
    }

    /// Every set found, and the files that could not be read (left as they are, and said).
    func all() -> (sets: [(AccountKey, TokenSet)], unreadable: [String]) {
        var sets: [(AccountKey, TokenSet)] = []
        var unreadable: [String] = []
        for name in FileSystem.list(directory).sorted() where !name.hasPrefix(".") {
            let file = directory + "/" + name
            guard let text = try? FileSystem.readText(file, maxBytes: 1 << 20) else {
                unreadable.append(file)
                continue
            }
            let lines = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard lines.count == 4, lines[0] == Self.header, let tokens = StoredTokens.decode(lines[3]) else {
                unreadable.append(file)
                continue
            }
            let key = AccountKey(qualifiedName: lines[1], issuer: lines[2])
            guard (try? path(key)) == file else {
                unreadable.append(file)
                continue
            }
            sets.append((key, tokens))
        }
        return (sets, unreadable)
    }

    /// The file of `key`'s set: the SHA-256 of its key, in hex. A digest that cannot be made is an error, never a
    /// name of another file (or the directory itself).
    private func path(_ key: AccountKey) throws(SystemError) -> String {
        let digest: [UInt8]
        do { digest = try SHA256.hash(key.qualifiedName + "\n" + key.issuer) } catch {
            throw SystemError(error.description, path: directory, code: EIO)
        }
        return directory + "/" + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
