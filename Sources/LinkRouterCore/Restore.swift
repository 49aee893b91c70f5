/// Start-up: the stored sessions are in; the bus is asked who is still on it
/// (its id too: unique names repeat across buses), and `Router.restored`
/// settles the owners that left, the listeners, the polls and the deadlines.
public struct Restore: OperationMachine {
    /// The bus the stored sessions' owners were on, as the store recorded it.
    public let previousBusID: String?

    public enum Work: Sendable, Equatable {
        case busNames
    }

    public enum Event: Sendable {
        case busNames(Result<BusSnapshot, RouterError>)
    }

    var running: Running { .restore(self) }

    init?(_ running: Running) {
        guard case .restore(let m) = running else { return nil }
        self = m
    }

    init(previousBusID: String?) { self.previousBusID = previousBusID }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .busNames(let r):
            var t = Transition(core: [.finish(op)])
            if case .failure(let e) = r {
                t.effects.append(
                    .log(
                        LogLine(
                            .warning,
                            "Could not ask the bus who is on it (\(e.message)); every stored owner is taken as gone")))
            }
            let bus: BusSnapshot? = if case .success(let b) = r { b } else { nil }
            return t.then(turn.core.restored(previousBusID: previousBusID, bus: bus, &turn))
        }
    }
}
