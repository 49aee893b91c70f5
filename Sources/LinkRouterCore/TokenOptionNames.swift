/// `GetToken`'s option names that linkctl's front sends itself (it compiles
/// this file, not `TokenRequest`'s option table), spelled once: the table's
/// rows read them here.
public enum TokenOptionNames {
    /// The `min_valid` option and its flag, `--min-valid`.
    public static let minValidKey = "min_valid"
    public static let minValidFlag = "min-valid"
}
