import LinkRouterCore

/// The core's state, beside the other components: the `Router` (sessions,
/// the machines waiting on operations, held calls, callers, accounts'
/// tokens). It changes only here, when the executor takes a transition in;
/// every event is decided on `router`, a value, and carried out by the executor.
final class Core {
    private(set) var router: Router
    /// Sessions begun in this daemon's life (the `sessions_begun` counter).
    private(set) var begun: UInt64 = 0

    init(limits: Limits) { router = Router(limits: limits) }

    /// Takes in a transition's session changes (after they were written).
    func apply(_ changes: [SessionChange]) {
        router.apply(changes)
        for case .insert in changes { begun += 1 }
    }

    func apply(core changes: [CoreChange]) { router.apply(core: changes) }

    /// Puts every changed session back as it was (`Sessions.undo` restored the store).
    func undo(_ changes: [SessionChange], before: [Session?]) {
        var restore: [SessionChange] = []
        for (change, old) in zip(changes, before) {
            if let old { restore.append(.update(old)) } else { restore.append(.remove(change.id)) }
            if case .insert = change { begun -= 1 }
        }
        router.apply(restore)
    }

    /// Gives back the room of sessions that went (after a burst, at the checkpoint).
    func compact() { router.compact() }
}
