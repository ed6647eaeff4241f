import Glibc
import Mouse3DCore

/// Drives a live motion source from a poll loop and follows it through unplugging: when the
/// device goes away it says so and waits; when a device with the same identity comes back (a new
/// node, perhaps), it reopens it and carries on. Owned by one thread.
public final class MotionSourceFollower {
    /// What one ``step(until:)`` produced.
    public enum Step {
        /// Samples read from the source (possibly none).
        case samples([MotionSample])
        /// A signal arrived (SIGINT, SIGTERM, SIGUSR1, ...).
        case signal(Int32)
        /// The deadline passed with nothing to report.
        case deadline
    }

    private let request: MotionSourceRequest
    private let iioPollHertz: Double?
    private let mountOverride: MountMatrix?
    private let signals: SignalDescriptor
    private let monitor: UdevMonitor?
    private let report: (String) -> Void
    private(set) var source: LiveMotionSource?
    /// The identity of the device being followed.
    public private(set) var identity: MotionSourceSelector.Identity
    private var lostAt: UInt64?
    private var nextRetry: UInt64 = 0
    private var nextPoll: UInt64 = 0
    private let watchedButtons: Set<Int32>
    private var buttons: GamepadButtons?
    private var buttonChanges: [(code: Int32, pressed: Bool)] = []

    /// Opens the source now (throws if it cannot), ready to follow it.
    public init(
        _ request: MotionSourceRequest, iioPollHertz: Double? = nil, mountOverride: MountMatrix? = nil,
        watchingButtons watchedButtons: Set<Int32> = [], signals: SignalDescriptor, report: @escaping (String) -> Void
    ) throws {
        self.watchedButtons = watchedButtons
        self.request = request
        self.iioPollHertz = iioPollHertz
        self.mountOverride = mountOverride
        self.signals = signals
        self.report = report
        let opened = try MotionSourceSelector.open(request, iioPollHertz: iioPollHertz, mountOverride: mountOverride)
        source = opened.source
        identity = opened.identity
        monitor = try? UdevMonitor(subsystems: ["input", "iio"])
        attachButtons()
        if monitor == nil { report("udev monitor unavailable: checking for the device every 250 ms instead") }
    }

    /// Button changes (code, pressed) since the last call, in order.
    public func takeButtonChanges() -> [(code: Int32, pressed: Bool)] {
        defer { buttonChanges.removeAll() }
        return buttonChanges
    }

    /// The gamepad whose buttons are read, if any.
    public var buttonDeviceName: String? { buttons?.device.name }

    private func attachButtons() {
        buttons = nil
        guard !watchedButtons.isEmpty, let evdev = source as? EvdevMotionSource else { return }
        buttons = try? GamepadButtons.sibling(of: evdev.device.path, having: watchedButtons)
        if buttons == nil { report("no gamepad with the configured buttons next to \(evdev.device.name); buttons are ignored") }
    }

    /// Whether one of the descriptors passed to the last ``step(until:alsoWatching:)`` was readable.
    public private(set) var extraReadable = false

    /// A description of the current source (or of the one awaited).
    public var summary: String { source?.summary ?? "'\(identity.name)' (waiting for it)" }

    /// Waits until samples, a signal, or `deadline` (CLOCK_MONOTONIC ns); follows hotplug meanwhile.
    /// `alsoWatching`: other descriptors to wake for; ``extraReadable`` tells whether one was readable.
    public func step(until deadline: UInt64?, alsoWatching extra: [Int32] = []) throws -> Step {
        let now = MonotonicClock.nanoseconds()
        if source == nil && now >= nextRetry { tryReopen(now: now) }
        var descriptors = extra + [signals.descriptor]
        if let monitor { descriptors.append(monitor.descriptor) }
        let sourceDescriptors = source?.descriptors ?? []
        descriptors += sourceDescriptors
        let buttonPosition = buttons.map { _ in descriptors.count }
        if let buttons { descriptors.append(buttons.device.descriptor) }
        var wake = deadline
        if source?.pollIntervalNanoseconds != nil {
            if nextPoll == 0 { nextPoll = now }
            wake = min(wake ?? nextPoll, nextPoll)
        }
        if source == nil { wake = min(wake ?? nextRetry, nextRetry) }
        let poll = PollSet(descriptors)
        try poll.wait(timeoutNanoseconds: wake.map { $0 > now ? $0 - now : 0 })
        extraReadable = extra.indices.contains { poll.isReadable($0) }
        let base = extra.count
        if poll.isReadable(base), let signal = try signals.pending().first { return .signal(signal) }
        if let monitor, poll.isReadable(base + 1) {
            let events = monitor.pendingEvents()
            if source != nil, events.contains(where: { $0.action == "remove" }), !(source?.isPresent ?? true) {
                lose("it was unplugged")
            } else if source == nil, events.contains(where: { $0.action == "add" || $0.action == "change" || $0.action == "bind" }) {
                tryReopen(now: MonotonicClock.nanoseconds())
            }
        }
        if let buttonPosition, poll.isReadable(buttonPosition), let buttons {
            if let changes = try? buttons.readChanges() { buttonChanges += changes } else { self.buttons = nil }
        }
        guard let current = source else { return .deadline }
        let offset = base + (monitor == nil ? 1 : 2)
        let readable = (0..<sourceDescriptors.count).contains { poll.isReadable(offset + $0) }
        var due = false
        if let interval = current.pollIntervalNanoseconds, MonotonicClock.nanoseconds() >= nextPoll {
            due = true
            nextPoll += interval
            if nextPoll < MonotonicClock.nanoseconds() { nextPoll = MonotonicClock.nanoseconds() + interval }
        }
        guard readable || due else { return .deadline }
        do {
            return .samples(try current.readSamples())
        } catch {
            if current.isPresent { throw error }
            lose("it went away (\(error))")
            return .samples([])
        }
    }

    private func lose(_ why: String) {
        report("\(summary): \(why); waiting for it to come back")
        source = nil
        // Whatever was held is released with the device: nothing stays stuck.
        for code in buttons?.held.sorted() ?? [] { buttonChanges.append((code, false)) }
        buttons = nil
        lostAt = MonotonicClock.nanoseconds()
        nextRetry = 0
    }

    private func tryReopen(now: UInt64) {
        nextRetry = now + 250_000_000
        guard let opened = try? MotionSourceSelector.open(request, identity: identity, iioPollHertz: iioPollHertz, mountOverride: mountOverride) else { return }
        source = opened.source
        let away = lostAt.map { " after \(Double((now - $0) / 10_000_000) / 100) s" } ?? ""
        report("\(opened.source.summary): back\(away); resuming")
        lostAt = nil
        nextPoll = 0
        attachButtons()
    }
}
