/// A piece of one account's work whose state the account's keeper holds (`AccountKeeper`): its flight
/// (`TokenFlight`), its timer for refreshing ahead (`BackgroundRefresh`), its notice to the person
/// (`AccountNotice`). Its operations are tracked as `Running.account(key, work)`, and their results come back to it
/// through the keeper (`Router.completed`), as a login's come back through its session: so what an account is doing
/// is read in one place, and no other machine keeps a piece of it under an id of its own.
protocol AccountPart: Sendable, Equatable {
    associatedtype Event: Sendable
    /// Which of the account's works it is.
    static var work: AccountWork { get }
    /// Where the keeper holds it (nil: the account is not doing this work).
    static var slot: WritableKeyPath<AccountKeeper, Self?> { get }
    /// The operation it runs as.
    var op: OperationID { get }
    /// One result of its operation; the keeper takes its next state unless the transition ends the operation.
    mutating func handle(_ event: Event, _ turn: inout Turn) -> Transition
}
