/// The bus at one moment: its id (unique names repeat across buses) and every name on it.
public struct BusSnapshot: Sendable, Equatable {
    public let id: String
    public let names: Set<String>
    public init(id: String, names: Set<String>) {
        self.id = id
        self.names = names
    }
}
