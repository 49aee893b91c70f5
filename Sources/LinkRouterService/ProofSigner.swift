import JOSE
import LinkRouterCore
import OpenSSLKit

/// Signs the proofs `SignProof` answers with (`Transition.Reply.proof`): the one
/// place a proof for a resource is made. The keys read back from their JWKs
/// are kept by thumbprint (at most `maxKeys`), so a proof costs one ES256
/// signature, not a key check as well (bench: `dpop`, instructions per proof).
/// A key goes with its account's tokens (`keep`): signed out, it is not held here either.
final class ProofSigner {
    static let maxKeys = 64
    private var keys: [String: SigningKey] = [:]

    /// Forgets every key but those of `thumbprints` (the tokens the daemon still holds).
    func keep(_ thumbprints: Set<String>) {
        keys = keys.filter { thumbprints.contains($0.key) }
    }

    func sign(_ plan: ProofPlan, issuedAt: Int64) throws(JOSEError) -> String {
        let key: SigningKey
        if let kept = keys[plan.key.thumbprint] {
            key = kept
        } else {
            // `signingKey` checks the JWK against its thumbprint: a cached key is the thumbprint's.
            key = try plan.key.signingKey()
            if keys.count >= Self.maxKeys { keys.removeAll() }
            keys[plan.key.thumbprint] = key
        }
        return try DPoPProof.make(
            key: key, method: plan.method, url: plan.url, issuedAt: issuedAt, nonce: plan.nonce,
            accessToken: plan.accessToken)
    }
}
