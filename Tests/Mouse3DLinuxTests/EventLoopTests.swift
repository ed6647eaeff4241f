import Foundation
import Glibc
import Mouse3DCore
import Mouse3DLinux
import SystemPackage
import Testing

/// How many SIGUSR2s `interruptedWait`'s handler ran for (only that test sends them, to its own thread).
nonisolated(unsafe) var interruptionsHandled = 0

/// A pipe whose read end the loop watches.
final class TestPipe {
    let read: FileDescriptor
    let write: FileDescriptor

    init() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        read = FileDescriptor(rawValue: fds[0])
        write = FileDescriptor(rawValue: fds[1])
    }

    /// A pipe whose read end takes `number`, closing what that number held, in one dup2. (Closing
    /// first and counting on the lowest free number raced with tests opening files beside it.)
    init(readAt number: Int32) throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        #expect(dup2(fds[0], number) == number)
        close(fds[0])
        read = FileDescriptor(rawValue: number)
        write = FileDescriptor(rawValue: fds[1])
    }

    deinit {
        try? read.close()
        try? write.close()
    }

    func send(_ byte: UInt8 = 1) throws { _ = try write.writeAll([byte]) }

    func take() throws -> UInt8 {
        var byte: [UInt8] = [0]
        _ = try byte.withUnsafeMutableBytes { try read.read(into: $0) }
        return byte[0]
    }
}

@Suite("The event loop")
struct EventLoopTests {
    @Test("A readable descriptor runs its handler, in registration order, and stop() ends run()")
    func readable() throws {
        let loop = try EventLoop(signals: [])
        let a = try TestPipe()
        let b = try TestPipe()
        var seen: [String] = []
        loop.watch(b.read) {
            seen.append("b\(try b.take())")
            loop.stop()
        }
        loop.watch(a.read) { seen.append("a\(try a.take())") }
        try a.send(7)
        try b.send(9)
        #expect(try loop.run() == .requested)
        #expect(seen == ["b9"], "the handler that stops ends the pass: \(seen)")
        #expect(try loop.run(until: MonotonicClock.nanoseconds() + 50_000_000) == nil)
        #expect(seen == ["b9", "a7"], "still readable, so handled at the next wait: \(seen)")
    }

    @Test("Timers fire once their deadline passes, and not before; nil deadlines never fire")
    func timers() throws {
        let loop = try EventLoop(signals: [])
        let start = MonotonicClock.nanoseconds()
        var due: UInt64? = start + 20_000_000
        var firedAt: [UInt64] = []
        loop.timer(deadline: { due }) { now in
            firedAt.append(now)
            due = firedAt.count < 3 ? now + 10_000_000 : nil
        }
        loop.timer(deadline: { nil }) { _ in Issue.record("a timer without a deadline fired") }
        _ = try loop.run(until: start + 2_000_000_000) { firedAt.count == 3 }
        #expect(firedAt.count == 3)
        #expect((firedAt.first ?? 0) >= start + 20_000_000, "fired early")
        #expect(zip(firedAt, firedAt.dropFirst()).allSatisfy { $1 - $0 >= 10_000_000 })
    }

    @Test("A cancelled registration is not called again, also when cancelled by another handler in the same pass")
    func cancel() throws {
        let loop = try EventLoop(signals: [])
        let a = try TestPipe()
        let b = try TestPipe()
        var calls = 0
        var bRegistration: EventLoop.Registration?
        loop.watch(a.read) {
            _ = try a.take()
            if let bRegistration { loop.cancel(bRegistration) }
        }
        bRegistration = loop.watch(b.read) { calls += 1 }
        try a.send()
        try b.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 50_000_000)
        #expect(calls == 0)
        let timer = loop.timer(deadline: { 0 }) { _ in calls += 1 }
        loop.cancel(timer)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 20_000_000)
        #expect(calls == 0)
    }

    @Test(
        "One descriptor watched twice runs both handlers; cancelling one keeps the other; cancelling the last stops them"
    )
    func watchedTwice() throws {
        let loop = try EventLoop(signals: [])
        let a = try TestPipe()
        var seen: [String] = []
        let first = loop.watch(a.read) { seen.append("first") }
        let second = loop.watch(a.read) {
            seen.append("second")
            _ = try a.take()
        }
        try a.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { !seen.isEmpty }
        #expect(seen == ["first", "second"])
        loop.cancel(first)
        seen = []
        try a.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { !seen.isEmpty }
        #expect(seen == ["second"])
        loop.cancel(second)
        seen = []
        try a.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 30_000_000)
        #expect(seen.isEmpty)
    }

    @Test(
        "A descriptor closed before its watch is cancelled, its number reused and watched again: the new one is heard after the old watch is cancelled"
    )
    func numberReused() throws {
        let loop = try EventLoop(signals: [])
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let old = loop.watch(FileDescriptor(rawValue: fds[0])) { Issue.record("the closed pipe's handler ran") }
        close(fds[1])
        let fresh = try TestPipe(readAt: fds[0])  // the old read end closed, its number reused
        #expect(fresh.read.rawValue == fds[0])
        var heard = 0
        loop.watch(fresh.read) {
            heard += 1
            _ = try fresh.take()
        }
        loop.cancel(old)  // after the new watch: must not take the number out of the set
        try fresh.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { heard > 0 }
        #expect(heard == 1)
    }

    @Test(
        "A descriptor closed before its watch is cancelled while a duplicate keeps the file open: its entry is dropped once, the wait blocks again"
    )
    func staleEntry() throws {
        let loop = try EventLoop(signals: [])
        let pipe = try TestPipe()
        var fds: [Int32] = [0, 0]
        #expect(Glibc.pipe(&fds) == 0)
        let keeper = dup(fds[0])  // the file stays open after its watched number is closed
        defer {
            close(keeper)
            close(fds[1])
        }
        let watched = loop.watch(FileDescriptor(rawValue: fds[0])) { Issue.record("the closed number's handler ran") }
        var heard = 0
        loop.watch(pipe.read) {
            heard += 1
            _ = try pipe.take()
        }
        close(fds[0])
        loop.cancel(watched)  // EPOLL_CTL_DEL by a closed number fails: the entry stays in the set
        #expect(write(fds[1], "x", 1) == 1)  // and is readable from now on
        let start = MonotonicClock.nanoseconds()
        _ = try loop.run(until: start + 60_000_000)
        #expect(loop.staleEntriesDropped == 1, "dropped once, not at every wake-up (nor never: a busy loop)")
        #expect(MonotonicClock.nanoseconds() - start >= 55_000_000)
        try pipe.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { heard > 0 }
        #expect(heard == 1, "the other watch carries on in the new set")
    }

    @Test(
        "A paused descriptor wakes nothing until resumed, while its data waits; another watch of it wakes the loop, and its leaving restores the pause"
    )
    func pausedWatch() throws {
        let loop = try EventLoop(signals: [])
        let pipe = try TestPipe()
        var handled = 0
        let watch = loop.watch(pipe.read) {
            handled += 1
            _ = try pipe.take()
        }
        loop.setPaused(watch, true)
        try pipe.send()
        let start = MonotonicClock.nanoseconds()
        _ = try loop.run(until: start + 30_000_000)
        #expect(handled == 0, "a paused watch ran")
        #expect(MonotonicClock.nanoseconds() - start >= 30_000_000, "the wait returned early: not paused in the set")
        loop.setPaused(watch, false)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 1_000_000_000) { handled == 1 }
        #expect(handled == 1, "the byte that waited is read once resumed")

        // A second watch of the number wakes for it while the first is paused; cancelling that one
        // leaves the descriptor paused again.
        loop.setPaused(watch, true)
        var second = 0
        let other = loop.watch(pipe.read) { second += 1 }
        try pipe.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 1_000_000_000) { handled == 2 }
        #expect(second >= 1 && handled == 2, "the unpaused watch woke the loop (and its pass ran the readable ones)")
        loop.cancel(other)
        try pipe.send()
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 30_000_000)
        #expect(handled == 2, "paused again once its unpaused companion left")
        loop.setPaused(watch, false)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 1_000_000_000) { handled == 3 }
        #expect(handled == 3)
    }

    @Test("A regular file (which epoll cannot watch) is always readable, as poll has it")
    func regularFile() throws {
        let loop = try EventLoop(signals: [])
        let path = "/tmp/mouse3d-eventloop-\(getpid()).txt"
        let file = try FileDescriptor.open(
            FilePath(path), .readWrite, options: [.create, .truncate], permissions: [.ownerReadWrite])
        defer {
            try? file.close()
            unlink(path)
        }
        var calls = 0
        let registration = loop.watch(file) { calls += 1 }
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { calls >= 3 }
        #expect(calls >= 3)
        loop.cancel(registration)
        calls = 0
        let start = MonotonicClock.nanoseconds()
        _ = try loop.run(until: start + 30_000_000)
        #expect(calls == 0)
        #expect(MonotonicClock.nanoseconds() - start >= 25_000_000, "the wait blocks again once it is cancelled")
    }

    @Test("A handler that registers on every call (a connection flood) does not hold the timers, nor a cancelled one")
    func registeringHandlerLeavesTimers() throws {
        let loop = try EventLoop(signals: [])
        let flood = try TestPipe()
        try flood.send()  // never taken: readable at every wait
        var registrations: [(EventLoop.Registration, TestPipe)] = []
        var accepted = 0
        loop.watch(flood.read) {
            accepted += 1
            let extra = try TestPipe()
            registrations.append((loop.watch(extra.read) {}, extra))
            if registrations.count > 8 { loop.cancel(registrations.removeFirst().0) }
        }
        let start = MonotonicClock.nanoseconds()
        var fired: [UInt64] = []
        var due: UInt64? = start + 10_000_000
        var second: EventLoop.Registration?
        loop.timer(deadline: { due }) { now in
            fired.append(now)
            due = now + 10_000_000
            if let second { loop.cancel(second) }  // the timer after it, due too, is not called
        }
        second = loop.timer(deadline: { due }) { _ in Issue.record("a timer cancelled in this pass fired") }
        _ = try loop.run(until: start + 2_000_000_000) { fired.count >= 5 }
        #expect(fired.count >= 5, "timers fired \(fired.count) times in 2 s beside \(accepted) registrations")
        #expect(accepted > 5)
    }

    @Test(
        "A listener flooded with connects (each registers a watch) cannot starve a connection watched after it: its reads come every wake-up"
    )
    func registeringHandlerLeavesLaterWatches() throws {
        let loop = try EventLoop(signals: [])
        let listener = try TestPipe()
        try listener.send()  // never taken: a listener whose queue never empties
        var accepted: [(EventLoop.Registration, TestPipe)] = []
        var wakeUps = 0
        loop.watch(listener.read) {
            wakeUps += 1
            // Each "accepted connection" registers a watch, and the oldest is closed.
            let extra = try TestPipe()
            accepted.append((loop.watch(extra.read) {}, extra))
            if accepted.count > 8 { loop.cancel(accepted.removeFirst().0) }
        }
        // The established connection, registered after the listener: a byte waits at every wake-up.
        let established = try TestPipe()
        var reads = 0
        loop.watch(established.read) {
            _ = try established.take()
            reads += 1
            try established.send()
        }
        try established.send()
        let start = MonotonicClock.nanoseconds()
        _ = try loop.run(until: start + 2_000_000_000) { wakeUps >= 200 }
        #expect(wakeUps >= 200, "the listener ran \(wakeUps) times in 2 s")
        // Read at every wake-up the listener had (the last may end the run before it is reached).
        #expect(reads >= wakeUps - 1, "the established connection was read \(reads) times in \(wakeUps) wake-ups")
    }

    @Test("A handler's error ends run() and reaches the caller")
    func errors() throws {
        struct Boom: Error {}
        let loop = try EventLoop(signals: [])
        loop.timer(deadline: { 0 }) { _ in throw Boom() }
        #expect(throws: Boom.self) { try loop.run() }
    }

    @Test("Signals are handled in one place: SIGHUP reloads, SIGUSR1 recenters, SIGTERM stops and is named")
    func signals() throws {
        // Signals go to this thread only (pthread_kill), which the loop blocked them for, so the
        // test runner's other threads never see them.
        let loop = try EventLoop(signals: .all)
        var events: [String] = []
        loop.onReload = { events.append("reload") }
        loop.onRecenter = { events.append("recenter") }
        #expect(pthread_kill(pthread_self(), SIGHUP) == 0)
        #expect(pthread_kill(pthread_self(), SIGUSR1) == 0)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { events.count == 2 }
        #expect(Set(events) == ["reload", "recenter"])
        #expect(pthread_kill(pthread_self(), SIGTERM) == 0)
        let ending = try loop.run()
        #expect(ending == .signal(SIGTERM))
        #expect(ending.name == "SIGTERM")
    }

    @Test(
        "A wait the shim restarts after EINTR still ends at its deadline, not a whole timeout later",
        .serialized, arguments: ["the loop's run", "waitUntilReadable"])
    func interruptedWait(wait: String) throws {
        // A handler (not signalfd) makes each SIGUSR2 interrupt the wait with EINTR. The test
        // runner's threads block signals: this one lets SIGUSR2 through while it runs.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptionsHandled += 1 }
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        var usr2 = sigset_t()
        sigemptyset(&usr2)
        sigaddset(&usr2, SIGUSR2)
        var mask = sigset_t()
        #expect(pthread_sigmask(SIG_UNBLOCK, &usr2, &mask) == 0)
        defer {
            pthread_sigmask(SIG_SETMASK, &mask, nil)
            sigaction(SIGUSR2, &previous, nil)
        }
        interruptionsHandled = 0
        let loop = try EventLoop(signals: [])
        let quiet = try TestPipe()  // never written: the one-shot wait times out
        let target = pthread_self()
        let stop = try TestPipe()
        let done = try TestPipe()
        let (stopRead, doneWrite) = (stop.read, done.write)
        Thread.detachNewThread {  // every 20 ms for up to 1.5 s, until told to stop
            var sent: UInt8 = 0
            while sent < 75, (try? EventLoop.waitUntilReadable([stopRead], timeoutNanoseconds: 20_000_000)) == false {
                pthread_kill(target, SIGUSR2)
                sent += 1
            }
            _ = try? doneWrite.writeAll([sent])
        }
        let start = MonotonicClock.nanoseconds()
        if wait == "waitUntilReadable" {
            #expect(try EventLoop.waitUntilReadable([quiet.read], timeoutNanoseconds: 200_000_000) == false)
        } else {
            _ = try loop.run(until: start + 200_000_000)
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        try stop.send()
        #expect(try EventLoop.waitUntilReadable([done.read], timeoutNanoseconds: 5_000_000_000))
        let sent = try done.take()
        #expect(sent >= 5 && interruptionsHandled >= 5, "the wait was interrupted (else this test shows nothing)")
        #expect(elapsed >= 200_000_000)
        // Restarted with the whole 200 ms, it would end 200 ms after the last signal (1.7 s).
        #expect(elapsed < 1_000_000_000, "ended \(elapsed / 1_000_000) ms after a 200 ms deadline")
    }

    @Test("waitUntilReadable says whether a descriptor became readable within the timeout")
    func oneShotWait() throws {
        let p = try TestPipe()
        #expect(try EventLoop.waitUntilReadable([p.read], timeoutNanoseconds: 10_000_000) == false)
        try p.send()
        #expect(try EventLoop.waitUntilReadable([p.read], timeoutNanoseconds: 10_000_000) == true)
    }
}

@Suite("Pipelines on the event loop")
struct MotionPipelineTests {
    final class Collected: AttitudeSink {
        var updates: [AttitudeUpdate] = []
        var batches = 0, ended = 0, finished = 0
        func write(_ update: AttitudeUpdate) throws { updates.append(update) }
        func endOfBatch() throws { batches += 1 }
        func sourceEnded() throws { ended += 1 }
        func finish() { finished += 1 }
    }

    func samples(_ count: Int) -> [MotionSample] {
        (0..<count).map { i in
            MotionSample(
                timestampNanoseconds: Int64(i) * 10_000_000, angularVelocityRadiansPerSecond: SIMD3(0, 0, 1),
                specificForceMetersPerSecondSquared: SIMD3(0, 0, 9.81))
        }
    }

    @Test(
        "A log at maximum speed: every sample fused once, in order, in batches of at most 256; the loop ends by itself")
    func replayToOutputs() throws {
        let loop = try EventLoop(signals: [])
        let output = Collected()
        let input = samples(1000)
        let pipeline = MotionPipeline(
            source: MotionLogPlayback(samples: input, path: "test.csv", loops: false, speed: nil),
            fusion: MotionFusion(parameters: AttitudeEstimatorParameters()),
            outputs: AttitudePipeline(outputs: [output]), report: { _ in })
        pipeline.start(on: loop)
        #expect(try loop.run() == .requested)
        #expect(output.updates.count == 1000)
        #expect(output.updates.map(\.sequence) == Array(0..<1000))
        #expect(output.updates.map(\.motionNanoseconds) == input.map { UInt64($0.timestampNanoseconds) })
        #expect(output.batches == 4, "1000 samples in batches of 256")
        #expect(output.ended == 1)
        // Turning at 1 rad/s about Z for 9.99 s: the yaw wrapped and kept moving.
        #expect(output.updates.last!.frame.yaw != output.updates.first!.frame.yaw)
    }

    @Test(
        "Samples that stop for longer than the filter bridges are said once, with the gap; 0.25 s or less, and a steady stream, say nothing"
    )
    func samplesStopped() throws {
        func said(gapAfter index: Int, of gap: Int64) throws -> [String] {
            let loop = try EventLoop(signals: [])
            var lines: [String] = []
            let input = samples(600).enumerated().map { i, sample in
                var moved = sample
                if i > index { moved.timestampNanoseconds += gap }
                return moved
            }
            let pipeline = MotionPipeline(
                source: MotionLogPlayback(samples: input, path: "test.csv", loops: false, speed: nil),
                fusion: MotionFusion(parameters: AttitudeEstimatorParameters()),
                outputs: AttitudePipeline(outputs: [Collected()]), report: { lines.append($0) })
            pipeline.start(on: loop)
            _ = try loop.run()
            return lines
        }
        let stopped = try said(gapAfter: 300, of: 480_000_000)
        #expect(
            stopped == [
                "the motion samples stopped for 0.49 s (this machine was busy, or the device paused): motion in that time was not seen"
            ], "\(stopped)")
        #expect(try said(gapAfter: 300, of: 240_000_000).isEmpty, "a gap of 0.25 s is bridged")
        #expect(try said(gapAfter: 300, of: 0).isEmpty)
    }

    @Test("A log played in real time takes its own time")
    func replayInTime() throws {
        let loop = try EventLoop(signals: [])
        let output = Collected()
        let pipeline = MotionPipeline(
            source: MotionLogPlayback(samples: samples(11), path: "test.csv", loops: false, speed: 1),
            fusion: MotionFusion(parameters: AttitudeEstimatorParameters()),
            outputs: AttitudePipeline(outputs: [output]), report: { _ in })
        let start = MonotonicClock.nanoseconds()
        pipeline.start(on: loop)
        _ = try loop.run()
        #expect(MonotonicClock.nanoseconds() - start >= 100_000_000, "11 samples 10 ms apart span 100 ms")
        #expect(output.updates.count == 11)
    }

    @Test("SIGUSR1 recentres: the next update is at zero")
    func recenter() throws {
        let loop = try EventLoop(signals: .recenter)
        let output = Collected()
        let pipeline = MotionPipeline(
            source: MotionLogPlayback(samples: samples(200), path: "test.csv", loops: false, speed: 4),
            fusion: MotionFusion(parameters: AttitudeEstimatorParameters()),
            outputs: AttitudePipeline(outputs: [output]), report: { _ in })
        pipeline.start(on: loop)
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 5_000_000_000) { output.updates.count >= 100 }
        #expect(abs(output.updates.last!.frame.yaw) > 0.5)
        #expect(pthread_kill(pthread_self(), SIGUSR1) == 0)
        let before = output.updates.count
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 5_000_000_000) { output.updates.count > before + 1 }
        let after = output.updates[before...].first { abs($0.frame.yaw) < 0.05 }
        #expect(after != nil, "an update near zero after SIGUSR1")
    }
}
