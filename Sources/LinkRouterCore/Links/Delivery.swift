/// A link handed to the app that owns it (`org.freedesktop.Application.Open`,
/// or its `Exec`): the click hears what became of it when the app answers.
public struct Delivery: OperationMachine {
    public let url: String
    public let app: LinkApp
    /// The connection whose `Route` waits for the outcome; nil for a queued
    /// link, a loopback request, or a caller that left the bus meanwhile (the
    /// link still reaches the app: it was clicked).
    public var caller: String?

    public enum Work: Sendable, Equatable {
        case deliver(url: String, app: LinkApp, context: ActivationContext)
    }

    /// The app took the link (`.delivered`: its `Open` returned; `.launched`: its `Exec` started), or why not.
    public enum Event: Sendable {
        case delivered(Result<RouteOutcome, RouterError>)
    }

    var running: Running { .delivery(self) }

    init?(_ running: Running) {
        guard case .delivery(let m) = running else { return nil }
        self = m
    }

    public init(url: String, app: LinkApp, caller: String?) {
        self.url = url
        self.app = app
        self.caller = caller
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        var t = Transition(core: [.finish(op)])
        let (app, answers) = (app, caller != nil)
        switch event {
        case .delivered(.success(let outcome)):
            if answers { t.effects.append(.answer(op, .routed(outcome))) }
            t.effects.append(.log(LogLine(.info, "\(app.id) took the link")))
        case .delivered(.failure(let e)) where e.code == .appFailed && SchemeRule.isWebLink(url):
            // A web link is not lost: the browser takes it, and the click hears so.
            t.effects = [.openBrowser(url, in: .web)] + (answers ? [.answer(op, .routed(.passthrough))] : [])
            t.effects.append(.log(LogLine(.warning, "\(e.message); opening it in the browser instead")))
        case .delivered(.failure(let e)):
            if answers { t.effects.append(.answer(op, .refused(e))) }
            t.effects.append(.log(LogLine(.warning, e.message)))
            // Nobody else may ever hear of it: the person who clicked does.
            if e.code == .appFailed {
                t.effects.append(.notify(summary: "A link could not be opened", body: e.message))
            }
        }
        return t
    }
}
