import Mouse3DCore

/// A live motion source on the event loop, followed through unplugging: when the device goes away
/// it says so and waits; when a device with the same identity comes back (a new node, perhaps), it
/// reopens it and carries on. Also reads the watched buttons of the gamepad next to it. Owned by the
/// loop's thread.
public final class MotionSourceFollower: MotionSampleSource {
    private let request: MotionSourceRequest
    private let iioPollHertz: Double?
    private let mountOverride: MountMatrix?
    private let monitor: UdevMonitor?
    private let report: (String) -> Void
    private(set) var source: LiveMotionSource?
    /// The identity of the device being followed.
    public private(set) var identity: MotionSourceSelector.Identity
    private var lostAt: UInt64?
    private var nextRetry: UInt64 = 0
    private var nextPoll: UInt64 = 0
    /// Why reopening failed while the device was there, said once a minute each.
    private var reopenFailures = RepeatedLines(windowNanoseconds: 60_000_000_000)
    private let watchedButtons: Set<Int32>
    private let watchedAxes: Set<Int32>
    /// Whether the controller's event nodes are taken for mouse3d alone (the virtual gamepad
    /// stands in for it).
    private let hidingPad: Bool
    private var buttons: GamepadButtons?
    private var loop: EventLoop?
    private var sink = MotionSampleSink(samples: { _ in })
    /// What is registered for the current device (its descriptors, its buttons, its poll timer).
    private var deviceRegistrations: [EventLoop.Registration] = []

    /// Opens the source now (throws if it cannot), ready to follow it once started.
    public init(
        _ request: MotionSourceRequest, iioPollHertz: Double? = nil, mountOverride: MountMatrix? = nil,
        watchingButtons watchedButtons: Set<Int32> = [], axes watchedAxes: Set<Int32> = [], hidingPad: Bool = false,
        report: @escaping (String) -> Void
    ) throws {
        self.watchedButtons = watchedButtons
        self.watchedAxes = watchedAxes
        self.hidingPad = hidingPad
        self.request = request
        self.iioPollHertz = iioPollHertz
        self.mountOverride = mountOverride
        self.report = report
        let opened = try MotionSourceSelector.open(request, iioPollHertz: iioPollHertz, mountOverride: mountOverride)
        source = opened.source
        identity = opened.identity
        monitor = try? UdevMonitor(subsystems: ["input", "iio"])
        attachButtons()
        if monitor == nil { report("udev monitor unavailable: checking for the device every 250 ms instead") }
    }

    /// The gamepad whose buttons are read, if any.
    public var buttonDeviceName: String? { buttons?.device.name }

    /// A description of the current source (or of the one awaited).
    public var summary: String { source?.summary ?? "'\(identity.name)' (waiting for it)" }

    /// What the source open now says at the end (its timestamps' check).
    public var closingSummary: [String] { source?.closingSummary ?? [] }

    public func start(on loop: EventLoop, sink: MotionSampleSink) {
        self.loop = loop
        self.sink = sink
        if let monitor { loop.watch(monitor.descriptor) { [unowned self] in try hotplug(monitor.pendingEvents()) } }
        // While the device is away: look for it again every 250 ms (events from udev come sooner).
        loop.timer(deadline: { [unowned self] in source == nil ? nextRetry : nil }) { [unowned self] now in
            tryReopen(now: now)
        }
        registerDevice()
    }

    private func attachButtons() {
        buttons = nil
        hiddenNodes = []
        heldForHiding = []
        guard !watchedButtons.isEmpty, let evdev = source as? EvdevMotionSource else { return }
        buttons = try? GamepadButtons.sibling(of: evdev.device.path, having: watchedButtons, axes: watchedAxes)
        if buttons == nil {
            report("no gamepad with the configured buttons next to \(evdev.device.name); buttons are ignored")
        }
        guard hidingPad else { return }
        // Every node of the controller: motion, gamepad, a DualSense's touchpad (which the desktop
        // would otherwise take as a touchpad). Those mouse3d does not read are held open for the grab.
        let read = [evdev.device] + (buttons.map { [$0.device] } ?? [])
        let others = ((try? GamepadButtons.siblingNodes(of: evdev.device.path)) ?? []).filter { node in
            !read.contains { $0.path == node }
        }.compactMap { try? EvdevDevice(path: $0) }
        heldForHiding = others
        for device in read + others {
            do {
                try device.grab()
                hiddenNodes.append(device.path)
            } catch {
                report(
                    "could not hide '\(device.name)' (\(device.path)) from other programs: \(error)\(error.errno == .resourceBusy ? " (another program holds it: close it and start again)" : ""); they see it beside the virtual gamepad"
                )
            }
        }
    }

    /// The event nodes taken for mouse3d alone (while the pad is hidden).
    public private(set) var hiddenNodes: [String] = []
    /// The controller's nodes mouse3d does not read, held open only for their grab.
    private var heldForHiding: [EvdevDevice] = []

    /// Registers the current device's descriptors (or its poll timer) and its buttons.
    private func registerDevice() {
        guard let loop, let current = source else { return }
        sink.accelerometerRange(current.accelerometerRangeMetersPerSecondSquared)
        for descriptor in current.descriptors {
            deviceRegistrations.append(loop.watch(descriptor) { [unowned self] in try read(current) })
        }
        if let interval = current.pollIntervalNanoseconds {
            nextPoll = MonotonicClock.nanoseconds()
            deviceRegistrations.append(
                loop.timer(deadline: { [unowned self] in nextPoll }) { [unowned self] now in
                    // From this read, not from the schedule: a late read is not followed by an early
                    // one, so reads are never closer than the interval (the rate asked is a maximum).
                    nextPoll = now + interval
                    try read(current)
                })
        }
        if let buttons {
            for case .axis(let code, let value) in buttons.currentAxes() { try? sink.axis(code, value) }
            var registration: EventLoop.Registration?
            registration = loop.watch(buttons.device.descriptor) { [unowned self, unowned loop] in
                guard let changes = try? buttons.readChanges() else {
                    // Gone with its device (the motion side notices and reports it): stop watching
                    // its descriptor before it is closed, and release what it held now (a gamepad
                    // whose buttons go first, as a Joy-Con's do, would otherwise leave them stuck:
                    // by the time the motion side is lost there is nothing left to release).
                    if let registration { loop.cancel(registration) }
                    let held = buttons.held.sorted()
                    self.buttons = nil
                    for code in held { try sink.button(code, false) }
                    for case .axis(let code, let value) in buttons.restingAxes { try sink.axis(code, value) }
                    return
                }
                for change in changes {
                    switch change {
                    case .button(let code, let pressed): try sink.button(code, pressed)
                    case .axis(let code, let value): try sink.axis(code, value)
                    }
                }
            }
            deviceRegistrations.append(registration!)
        }
    }

    private func read(_ current: LiveMotionSource) throws {
        guard source === current else { return }
        let samples: [MotionSample]
        do {
            samples = try current.readSamples()
        } catch {
            if current.isPresent { throw error }
            try lose("it went away (\(error))")
            return
        }
        if !samples.isEmpty { try sink.samples(samples) }
    }

    private func hotplug(_ events: [UdevMonitor.Event]) throws {
        if source != nil, events.contains(where: { $0.action == "remove" }), !(source?.isPresent ?? true) {
            try lose("it was unplugged")
        } else if source == nil,
            events.contains(where: { $0.action == "add" || $0.action == "change" || $0.action == "bind" })
        {
            tryReopen(now: MonotonicClock.nanoseconds())
        }
    }

    private func lose(_ why: String) throws {
        report("\(summary): \(why); waiting for it to come back")
        source = nil
        loop?.cancel(&deviceRegistrations)
        // Whatever was held is released with the device, and the sticks and triggers it pulled
        // return to rest: nothing stays stuck.
        let held = buttons?.held.sorted() ?? []
        let resting = buttons?.restingAxes ?? []
        buttons = nil
        heldForHiding = []
        lostAt = MonotonicClock.nanoseconds()
        nextRetry = 0
        for code in held { try sink.button(code, false) }
        for case .axis(let code, let value) in resting { try sink.axis(code, value) }
    }

    private func tryReopen(now: UInt64) {
        nextRetry = now + 250_000_000
        let opened: (source: LiveMotionSource, identity: MotionSourceSelector.Identity)
        do {
            opened = try MotionSourceSelector.open(
                request, identity: identity, iioPollHertz: iioPollHertz, mountOverride: mountOverride)
        } catch let error as MotionSourceError where error.isAbsence {
            return
        } catch {
            // There but not opening (its permissions not yet given to this user, a node that is
            // already going, a stored setup that does not read): "waiting for it to come back"
            // alone would hide it. Each reason is said once a minute, with how often it recurred.
            let line = "'\(identity.name)' is there again but does not open: \(error); trying again every 250 ms"
            if let said = reopenFailures.say(line, kind: "\(error)", now: now) { report(said) }
            return
        }
        source = opened.source
        let away = lostAt.map { " after \(Double((now - $0) / 10_000_000) / 100) s" } ?? ""
        report("\(opened.source.summary): back\(away); resuming")
        lostAt = nil
        sink.resumed()
        attachButtons()
        registerDevice()
    }
}
