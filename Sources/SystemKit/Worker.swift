internal import CLinux
import Glibc

/// One background thread for calls that may block for long (libsecret's,
/// which can wait on an unlock prompt without limit): the loop never waits
/// on them. Jobs run one at a time, in order; each result comes back on the
/// loop, through a pipe the loop watches, to the completion given with the
/// job. A job whose deadline passes is answered `nil` on the loop at once and
/// its `cancel` is called (from the loop thread: it must be thread-safe);
/// what the job returns later is dropped.
public final class Worker {
    private let loop: EventLoop
    private let shared: Shared
    private var completions: [UInt64: (any Sendable) -> Void] = [:]
    private var deadlines: [UInt64: EventLoop.TimerID] = [:]
    private var nextID: UInt64 = 1
    private var source: EventLoop.SourceID?

    /// The thread starts with the first job.
    public init(loop: EventLoop) {
        self.loop = loop
        shared = Shared()
    }

    deinit {
        if let source { loop.remove(source) }
        shared.stop()
    }

    /// Jobs queued or running.
    public var pending: Int { completions.count }

    /// Runs `job` on the worker; `completion` gets its result on the loop, or
    /// `nil` when `deadlineMilliseconds` passed first (then `cancel` runs).
    public func run<R: Sendable>(
        deadlineMilliseconds: Int64, cancel: @escaping @Sendable () -> Void = {}, _ job: @escaping @Sendable () -> R,
        _ completion: @escaping (R?) -> Void
    ) {
        if source == nil { start() }
        let id = nextID
        nextID += 1
        completions[id] = { value in completion(value as? R) }
        deadlines[id] = loop.schedule(afterMilliseconds: deadlineMilliseconds) { [weak self] in
            guard let self, let done = completions.removeValue(forKey: id) else { return }
            deadlines[id] = nil
            cancel()
            done(Optional<R>.none as any Sendable)
        }
        shared.enqueue(Shared.Job(id: id, body: { job() }))
    }

    private func start() {
        do { try shared.start() } catch {
            Log.error("Failed to start a worker thread: \(error)")
        }
        source = loop.watch(shared.wakeRead, for: .readable) { [weak self] _ in self?.drain() }
    }

    /// Takes in every finished job: their completions run here, on the loop.
    private func drain() {
        for (id, value) in shared.takeFinished() {
            guard let done = completions.removeValue(forKey: id) else { continue }  // its deadline passed
            if let timer = deadlines.removeValue(forKey: id) { loop.cancel(timer) }
            done(value)
        }
    }

    /// What the loop and the thread share, under one lock.
    final class Shared: @unchecked Sendable {
        struct Job: Sendable {
            let id: UInt64
            let body: @Sendable () -> any Sendable
        }
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private var queue: [Job] = []
        private var finished: [(UInt64, any Sendable)] = []
        private var stopping = false
        private var thread: pthread_t?
        private(set) var wakeRead: Int32 = -1
        private var wakeWrite: Int32 = -1

        init() {
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(condition, nil)
        }

        deinit {
            pthread_cond_destroy(condition)
            pthread_mutex_destroy(mutex)
            condition.deallocate()
            mutex.deallocate()
            if wakeRead >= 0 { close(wakeRead) }
            if wakeWrite >= 0 { close(wakeWrite) }
        }

        func start() throws(SystemError) {
            var fds: [Int32] = [-1, -1]
            guard pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else { throw SystemError("pipe2", code: errno) }
            wakeRead = fds[0]
            wakeWrite = fds[1]
            let context = Unmanaged.passRetained(self).toOpaque()
            var t = pthread_t()
            let rc = pthread_create(
                &t, nil,
                { raw in
                    let shared = Unmanaged<Shared>.fromOpaque(raw!).takeRetainedValue()
                    shared.work()
                    return nil
                }, context)
            guard rc == 0 else {
                Unmanaged<Shared>.fromOpaque(context).release()
                throw SystemError("pthread_create", code: rc)
            }
            pthread_detach(t)
            thread = t
        }

        func enqueue(_ job: Job) {
            pthread_mutex_lock(mutex)
            queue.append(job)
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }

        func stop() {
            pthread_mutex_lock(mutex)
            stopping = true
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }

        func takeFinished() -> [(UInt64, any Sendable)] {
            var byte: UInt8 = 0
            while read(wakeRead, &byte, 1) == 1 {}
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            let done = finished
            finished = []
            return done
        }

        /// The thread: one job at a time until stopped (the thread keeps `self` alive).
        private func work() {
            while true {
                pthread_mutex_lock(mutex)
                while queue.isEmpty && !stopping { pthread_cond_wait(condition, mutex) }
                if stopping {
                    pthread_mutex_unlock(mutex)
                    return
                }
                let job = queue.removeFirst()
                pthread_mutex_unlock(mutex)
                let value = job.body()
                pthread_mutex_lock(mutex)
                finished.append((job.id, value))
                pthread_mutex_unlock(mutex)
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
        }
    }
}
