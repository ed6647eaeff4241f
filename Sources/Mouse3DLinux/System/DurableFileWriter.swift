import CLinux
import Glibc
import Synchronization

/// Writes small secret files durably (``SecretFile/write(_:keepingTemporaries:)``: a temporary file,
/// fsync, swapped with or renamed over the file, fsync of the directory; the temporary is kept for
/// the next write of the path and removed at ``stop()``) on a thread of its own, in the order they
/// were submitted (those waiting together in one group commit), so that the event loop never waits
/// for the disk. Each finished write comes back, with its tag, through ``completions``, a descriptor
/// the loop watches.
///
/// Why: a receiver stores each sender's replay state before it accepts sequence numbers beyond the
/// last reservation. Done on the loop, each store (two fsyncs, 1–10 ms on common disks, far more on
/// an SD card) held every stream; with 64 senders, one stalled all the others every 64 ms (bench
/// stream --senders 64: p99 51 ms). Renewed ahead through this writer, no frame waits for it.
public final class DurableFileWriter<Tag: Sendable>: @unchecked Sendable {
    /// A write that finished: its tag, and the error if it failed.
    public struct Completion: Sendable {
        public let tag: Tag
        public let error: SystemCallError?
    }

    private struct Job: Sendable {
        let path: String
        let bytes: [UInt8]
        let tag: Tag
    }

    private struct State: Sendable {
        var queue: [Job] = []
        var finished: [Completion] = []
        /// Submitted and not finished.
        var pending = 0
        /// ``stop()`` was called: the worker ends once the queue is empty; a second call does nothing.
        var stopping = false
        /// Group commits done.
        var groups = 0
        /// Every path written: their temporaries are kept between writes, removed at ``stop()``.
        var written = Set<String>()
    }

    /// Readable when writes have finished; ``takeCompletions()`` then returns them.
    public let completions: EventNotifier
    /// Wakes the worker (blocking reads: it sleeps until there is work).
    private let work: Int32
    private let state = Mutex(State())
    private var thread: pthread_t?

    /// Starts the writer's thread.
    public init() throws(SystemCallError) {
        completions = try EventNotifier()
        work = try SystemCall.retrying("eventfd", "durable writer") { eventfd(0, Int32(EFD_CLOEXEC)) }
    }

    /// Starts the thread on the first write (not after ``stop()``: a write then is done on the spot).
    private func startIfNeeded() {
        guard thread == nil, !state.withLock({ $0.stopping }) else { return }
        thread = WorkerThread.start { [self] in runWorker() }
    }

    /// Queues a write of `bytes` to `path`; its completion carries `tag`.
    public func submit(path: String, bytes: [UInt8], tag: Tag) {
        startIfNeeded()
        state.withLock {
            $0.queue.append(Job(path: path, bytes: bytes, tag: tag))
            $0.pending += 1
        }
        if thread == nil {
            runQueued()  // no thread to be had: written here and now, as before
        } else {
            wakeWorker()
        }
    }

    /// The writes that finished since the last call, in submission order.
    public func takeCompletions() -> [Completion] {
        completions.reset()
        return state.withLock { s in
            defer { s.finished.removeAll() }
            return s.finished
        }
    }

    /// How many group commits wrote the files so far (for tests).
    public var groupsWritten: Int { state.withLock { $0.groups } }

    /// Whether every submitted write has finished.
    public var isIdle: Bool { state.withLock { $0.pending == 0 } }

    /// Blocks until every submitted write has finished (before a write that must land after them).
    public func waitUntilIdle() {
        while !isIdle { MonotonicClock.sleep(nanoseconds: 100_000) }
    }

    /// Finishes the queued writes, then stops the thread and removes the kept temporaries. Once:
    /// later calls do nothing.
    public func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        guard first else { return }
        if let thread {
            wakeWorker()
            pthread_join(thread, nil)
            self.thread = nil
        }
        close(work)
        for path in state.withLock({ $0.written }) { SecretFile.removeTemporary(for: path) }
    }

    private func wakeWorker() {
        var one: UInt64 = 1
        _ = try? SystemCall.retrying("write", "durable writer") { write(work, &one, 8) }
    }

    private func runWorker() {
        Self.yieldToTheLoop()
        while true {
            runQueued()
            if state.withLock({ $0.stopping && $0.queue.isEmpty }) { return }
            var value: UInt64 = 0
            _ = try? SystemCall.retrying("read", "durable writer") { read(work, &value, 8) }
        }
    }

    /// Writes everything queued, in order: as many as are waiting (up to ``groupLimit``, and not two
    /// of one path) in one group commit (``SecretFile/write(_:keepingTemporaries:)``, each path's
    /// temporary kept for its next write), their completions together.
    private func runQueued() {
        while true {
            let group = state.withLock { s -> [Job] in
                var paths = Set<String>()
                var taken = 0
                for job in s.queue.prefix(Self.groupLimit) {
                    guard paths.insert(job.path).inserted else { break }
                    taken += 1
                }
                defer { s.queue.removeFirst(taken) }
                return Array(s.queue.prefix(taken))
            }
            guard !group.isEmpty else { return }
            let keeping = !state.withLock { $0.stopping }  // after stop(), nothing would remove them
            let errors = SecretFile.write(group.map { ($0.path, $0.bytes) }, keepingTemporaries: keeping)
            state.withLock {
                for job in group { $0.written.insert(job.path) }
                for (job, error) in zip(group, errors) { $0.finished.append(Completion(tag: job.tag, error: error)) }
                $0.pending -= group.count
                $0.groups += 1
            }
            completions.notify()
        }
    }

    /// Names the calling thread ``threadName`` (as `top -H` and /proc show it) and lowers its CPU
    /// priority to the least (nice 19; on Linux a nice value is a thread's own). Why: a group commit of 64 sessions' states is milliseconds of CPU (64 writes,
    /// fsyncs and renames) on the core the receiver's loop runs on, and at the same priority the
    /// loop, woken by a datagram, waited behind it for up to 2 ms (perf sched trace, 64 senders:
    /// every off-CPU stretch of the loop over a millisecond fell inside a group commit). At nice 19
    /// the loop's wake-up preempts it; the writer still runs whenever the loop sleeps, and gets about
    /// 1.5% of a core against a busy one. Not a failure if refused (a seccomp filter, say).
    static func yieldToTheLoop() {
        _ = try? SystemCall.retrying("prctl", "durable writer") { mouse3d_set_thread_name(threadName) }
        let thread = id_t(mouse3d_thread_id())
        _ = try? SystemCall.retrying("setpriority", "durable writer") {
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, 19)
        }
    }

    /// The writer thread's name (at most 15 bytes).
    static var threadName: String { "mouse3d-store" }

    /// The most files written in one group (each holds a descriptor until the group is synced).
    static var groupLimit: Int { 64 }
}

/// A POSIX thread running a closure.
enum WorkerThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread; nil if the system refuses one (the caller then does the work
    /// itself).
    static func start(_ body: @escaping () -> Void) -> pthread_t? {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box.toOpaque())
        guard status == 0 else {
            box.release()
            return nil
        }
        return thread
    }
}
