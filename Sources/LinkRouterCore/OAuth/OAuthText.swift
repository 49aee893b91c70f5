/// Character rules from RFC 6749 Appendix A, for what the daemon accepts from
/// apps and passes on from providers.
public enum OAuthText {
    /// `error` and `error_description`: %x20-21 / %x23-5B / %x5D-7E (no `"` or `\`).
    public static func isErrorText(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { ($0 >= 0x20 && $0 <= 0x7E) && $0 != 0x22 && $0 != 0x5C }
    }

    /// VSCHAR (%x20-7E), for `client_id`.
    public static func isVisibleText(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    /// `scope`: space-separated scope-tokens of %x21 / %x23-5B / %x5D-7E.
    public static func isScope(_ s: String) -> Bool {
        let tokens = s.split(separator: " ", omittingEmptySubsequences: false)
        return tokens.allSatisfy { t in
            !t.isEmpty && t.utf8.allSatisfy { $0 == 0x21 || ($0 >= 0x23 && $0 <= 0x5B) || ($0 >= 0x5D && $0 <= 0x7E) }
        }
    }

    /// A `DPoP-Nonce` (RFC 9449 §8.1: NQCHAR, %x21 / %x23-5B / %x5D-7E), at most 512 bytes:
    /// one a server gave the daemon, or a caller gives `SignProof`.
    public static func isDPoPNonce(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 512 && s.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }
    }

    /// An adopted `state` (threat model D5): 16–128 characters of `[A-Za-z0-9-._~]`.
    public static func isAdoptableState(_ s: String) -> Bool {
        (16...128).contains(s.utf8.count) && s.utf8.allSatisfy(ASCII.isUnreserved)
    }

    /// A host name as written in `resume_hosts`: letters, digits, `-` and `.`, lowercase.
    public static func isHostName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 253 && !s.hasPrefix(".") && !s.hasSuffix(".") && !s.contains("..")
            && s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ASCII.isDigit($0) || $0 == 0x2D || $0 == 0x2E }
    }

    /// A desktop file id (`firefox.desktop`), Desktop Entry spec §"Desktop File ID".
    public static func isDesktopID(_ s: String) -> Bool {
        s.hasSuffix(".desktop") && s.utf8.count <= 255 && s.utf8.count > 8 && !s.hasPrefix(".")
            && s.utf8.allSatisfy { ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }

    /// Keeps a provider's `error_description` readable and bounded: never HTML, never long.
    public static func sanitizedDescription(_ s: String?) -> String? {
        guard let s, isErrorText(s) else { return nil }
        return s.utf8.count > 256 ? String(s.prefix(256)) + "…" : s
    }
}
