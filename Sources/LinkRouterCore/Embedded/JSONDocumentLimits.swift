/// The bounds JSON documents are read within by default (`JSONParser.Limits`),
/// in a file of their own so that linkctl's front, which reads kubectl's
/// `KUBERNETES_EXEC_INFO` with Jansson itself, accepts exactly what the full
/// linkctl accepts. They fit any JOSE header, ID-token payload, provider JWKS
/// or exec request seen in practice with a wide margin.
public enum JSONDocumentLimits {
    /// Longest document, checked before Jansson reads a byte.
    public static let maxBytes = 256 * 1024
    /// Deepest nesting of objects and arrays (the top container is depth 1).
    public static let maxDepth = 32
    /// Most object members plus array elements in the whole document.
    public static let maxMembers = 8192
}
