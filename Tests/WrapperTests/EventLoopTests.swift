import Glibc
import SystemKit
import Testing

@Suite("Event loop and subprocesses")
struct EventLoopTests {
    @Test("timers fire in deadline order; cancelled ones never")
    func timers() {
        let loop = EventLoop()
        var fired: [Int] = []
        loop.schedule(afterMilliseconds: 30) { fired.append(3) }
        let t = loop.schedule(afterMilliseconds: 10) { fired.append(99) }
        loop.schedule(afterMilliseconds: 20) { fired.append(2) }
        loop.schedule(afterMilliseconds: 0) { fired.append(1) }
        loop.schedule(afterMilliseconds: 40) { loop.stop() }
        loop.cancel(t)
        loop.run()
        #expect(fired == [1, 2, 3])
    }

    /// What makes a refresh due at 2 a.m. run the moment a laptop wakes at 8: the
    /// loop sleeps on a timer of the boot clock (clockid 7), which counts the
    /// suspend, not on `poll`'s timeout, which does not. Read from the kernel's own
    /// description of the descriptor; a suspend itself cannot be made in a test.
    @Test("the loop sleeps on a boot-clock timer armed at the next deadline")
    func bootClock() throws {
        let loop = EventLoop()
        let seconds: Int64 = 987_654
        let timer = loop.schedule(afterMilliseconds: seconds * 1000) {}
        loop.turn(maxWaitMilliseconds: 0)
        let armed = FileSystem.list("/proc/self/fd").compactMap { fd -> [String: String]? in
            guard let info = try? FileSystem.readText("/proc/self/fdinfo/\(fd)") else { return nil }
            var fields: [String: String] = [:]
            for line in info.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = String(
                    line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            }
            // it_value is the time left: "(987653, 999…)".
            guard let left = fields["it_value"], left.hasPrefix("(98765") else { return nil }
            return fields
        }
        #expect(armed.count == 1)
        #expect(armed.first?["clockid"] == "7")  // CLOCK_BOOTTIME
        loop.cancel(timer)
    }

    @Test("a readable descriptor wakes the loop")
    func descriptors() {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var got: [UInt8] = []
        let source = loop.watch(fds[0], for: .readable) { _ in
            var b: UInt8 = 0
            read(fds[0], &b, 1)
            got.append(b)
            loop.stop()
        }
        loop.schedule(afterMilliseconds: 5) {
            var b: UInt8 = 42
            write(fds[1], &b, 1)
        }
        let timeout = loop.schedule(afterMilliseconds: 2000) { loop.stop() }
        loop.run()
        #expect(got == [42])
        // The handlers hold the loop; dropping them frees it (LeakSanitizer checks this).
        loop.remove(source)
        loop.cancel(timeout)
    }

    @Test("argv reaches the child byte for byte, no shell (E1)")
    func argv() throws {
        let args = ["a b", "$(id)", "`id`", ";", "'\"", "\n", "*"]
        let out = try Subprocess.run(["/usr/bin/printf", "%s\\0"] + args)
        #expect(out.status == 0)
        #expect(out.output == Array(args.map { $0 + "\0" }.joined().utf8))
        #expect(throws: SystemError.self) { try Subprocess.run(["/nonexistent/program"]) }
    }

    @Test("atomic writes leave no temporary file behind")
    func atomic() throws {
        let dir = TemporaryDirectory()
        try FileSystem.writeAtomically(dir.path + "/f", text: "one", permissions: 0o640)
        try FileSystem.writeAtomically(dir.path + "/f", text: "two", permissions: 0o640)
        #expect(try FileSystem.readText(dir.path + "/f") == "two")
        #expect(FileSystem.list(dir.path) == ["f"])
        #expect(FileSystem.status(dir.path + "/f")?.permissions == 0o640)
    }
}
