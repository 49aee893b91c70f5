import LinkRouterCore
import SystemKit
import Testing

@testable import LinkRouterService

/// The soak (issue 13 §5) measures what a burst of sessions leaves behind;
/// this is the wiring it depends on, checked without a million sessions:
/// after the store's checkpoint, the core's tables give their room back.
@Suite("Room given back after a burst, in process")
struct CompactionTests {
    @Test(
        "300 sessions begun, then gone: the checkpoint that follows shrinks the session table's room (from 99dec1a on, nothing called the core's compaction, and the soak's million sessions left 8 MiB resident)"
    )
    func roomGivenBack() throws {
        let w = try InProcessDaemon(maxPending: 1000)
        var ids: [SessionID] = []
        for _ in 0..<300 { ids.append(try w.begin().id) }
        let peak = w.daemon.core.router.sessions.room
        #expect(peak >= 300)
        _ = w.daemon.execute(Transition(changes: ids.map { .remove($0) }))
        #expect(w.daemon.core.router.all.isEmpty)
        w.daemon.sessions.scheduleCheckpoint()
        // The checkpoint runs on the loop's timer (two seconds after the burst): turn the loop until it has.
        let deadline = Clock.monotonicMilliseconds() + 15_000
        while w.daemon.core.router.sessions.room >= peak, Clock.monotonicMilliseconds() < deadline {
            w.daemon.loop.turn(maxWaitMilliseconds: 500)
        }
        #expect(w.daemon.core.router.sessions.room < peak / 4, "room \(w.daemon.core.router.sessions.room) of \(peak)")
    }
}
