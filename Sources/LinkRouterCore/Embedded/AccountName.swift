/// The rule for an account's name, in a file of its own so that linkctl's
/// front (which checks `--account NAME` as the full linkctl does) compiles it as it is.
public enum AccountName {
    /// `[A-Za-z0-9][A-Za-z0-9._-]*`, at most 64: a file name, a keyring attribute, a word on a command line.
    public static func check(_ name: String) throws(RouterError) {
        let bytes = Array(name.utf8)
        func word(_ b: UInt8) -> Bool { (ASCII.isAlpha(b) || ASCII.isDigit(b)) || b == 0x2E || b == 0x5F || b == 0x2D }
        guard (1...64).contains(bytes.count), ASCII.isAlpha(bytes[0]) || ASCII.isDigit(bytes[0]), bytes.allSatisfy(word)
        else {
            throw .invalid(
                "an account name is 1 to 64 letters, digits, '.', '_' or '-', beginning with a letter or digit")
        }
    }
}
