/// Why a document was refused, and where.
///
/// `line` and `column` come from Jansson (1-based; the column counts
/// characters) for errors found while reading the text; limits checked on
/// the parsed tree report the member path instead (`$.keys[3]`). The message
/// never quotes the document: Jansson's "near '…'" excerpt is dropped because
/// the offending token may be a secret (a code, a nonce, a token).
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of refusal, to branch on; the message says the rest.
    public enum Code: String, Sendable, CaseIterable {
        /// Not JSON: a stray character, a missing comma, trailing text.
        case syntax
        /// A string (or the text around it) is not valid UTF-8.
        case invalidUTF8
        /// A string or member name contains U+0000.
        case nulCharacter
        /// An object names the same member twice (after unescaping), which
        /// lets two readers of one JWT see different claims.
        case duplicateMember
        /// An integer beyond 64 bits or a real beyond `Double`.
        case numberOutOfRange
        /// More bytes than `Limits.maxBytes`, or memory ran out.
        case tooLarge
        /// Containers nested deeper than `Limits.maxDepth`.
        case tooDeep
        /// More object members and array elements than `Limits.maxMembers`.
        case tooManyMembers
        /// Jansson could not be loaded.
        case unavailable
    }

    public var code: Code
    /// 1-based line of the error, nil when it is not tied to a place in the text.
    public var line: Int?
    /// Column within `line` (Jansson counts characters), nil like `line`.
    public var column: Int?
    public var message: String

    public init(_ code: Code, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.code = code
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        guard let line, let column else { return "JSON refused (\(code.rawValue)): \(message)" }
        return "JSON refused (\(code.rawValue)) at line \(line), column \(column): \(message)"
    }
}
