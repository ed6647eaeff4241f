import Mouse3DCore

/// A process's own pipeline: samples from a source are fused and every update goes to the outputs.
/// Gamepad buttons and SIGUSR1 act on the fusion (clutch, recenter, clicks); the end of a log ends
/// the loop once the outputs have what they held back. Owned by the event loop's thread.
public final class MotionPipeline {
    /// The source.
    public let source: MotionSampleSource
    /// The fusion stage (its clutch, zero and held buttons).
    public private(set) var fusion: MotionFusion
    /// The outputs.
    public let outputs: AttitudePipeline
    /// Which gamepad buttons do what.
    public let buttons: GamepadButtonMap
    private let report: (String) -> Void
    /// Recenters said at most once every few seconds each way (a script holding a page's token, or a
    /// button pressed again and again, would otherwise fill the log), the rest counted.
    private var lines = RepeatedLines()
    /// Called with a calibration made while running (a recalibrate button), to store it.
    public var onCalibrated: (GyroCalibration) -> Void = { _ in }

    /// Fuses what `source` delivers into `outputs`, with `buttons` acting on the fusion.
    public init(
        source: MotionSampleSource, fusion: MotionFusion, buttons: GamepadButtonMap = GamepadButtonMap(),
        outputs: AttitudePipeline,
        report: @escaping (String) -> Void
    ) {
        self.source = source
        self.fusion = fusion
        self.buttons = buttons
        self.outputs = outputs
        self.report = report
    }

    /// Makes the current attitude the zero, and says so with `reason`.
    public func recenter(because reason: String) {
        fusion.recenter()
        say("recentred (\(reason))")
    }

    /// Says `line` through `report`, coalesced with its repeats.
    private func say(_ line: String) {
        if let text = lines.say(line, now: MonotonicClock.nanoseconds()) { report(text) }
    }

    /// Registers the source, the outputs' timers and SIGUSR1 (recenter) with `loop`.
    public func start(on loop: EventLoop) {
        loop.onRecenter = { [unowned self] in recenter(because: "SIGUSR1") }
        loop.timer(deadline: { [unowned self] in outputs.nextDeadline }) { [unowned self] now in
            try outputs.tick(now: now)
        }
        source.start(
            on: loop,
            sink: MotionSampleSink(
                samples: { [unowned self] samples in
                    for sample in samples {
                        let now = MonotonicClock.nanoseconds()
                        try outputs.write(fusion.fuse(sample, nowNanoseconds: now))
                        outputs.sampleFused(sample, gyroBias: fusion.gyroBiasRadiansPerSecond, nowNanoseconds: now)
                    }
                    try outputs.endOfBatch()
                    if let gap = fusion.takeLongGap() {
                        let line =
                            "the motion samples stopped for \(fixed(Double(gap) * 1e-9, 2)) s (this machine was busy, or the device paused): motion in that time was not seen"
                        if let text = lines.say(line, kind: "samples stopped", now: MonotonicClock.nanoseconds()) {
                            report(text)
                        }
                    }
                    switch fusion.takeCalibrationEvent() {
                    case .moved?: report("calibration: it moved, starting again; put it down and leave it still")
                    case .done(let calibration)?: onCalibrated(calibration)
                    case nil: break
                    }
                },
                button: { [unowned self] code, pressed in
                    let before = fusion.buttons
                    outputs.gamepadButton(code: code, pressed: pressed)
                    let effect = buttons.apply(code: code, pressed: pressed, to: &fusion)
                    if effect == .recentred {
                        say("recentred (\(source.buttonName(code) ?? GamepadButtons.name(of: code)))")
                    }
                    if effect == .calibrating {
                        report(
                            "calibrating (\(source.buttonName(code) ?? GamepadButtons.name(of: code))): put the controller down and leave it still for 5 s"
                        )
                    }
                    // A release is handed on at once, not with the next sample: none may come (the
                    // kernel releases a gamepad's keys as it removes it, after its motion device).
                    if !pressed, fusion.buttons != before,
                        let update = fusion.update(nowNanoseconds: MonotonicClock.nanoseconds())
                    {
                        try outputs.write(update)
                        try outputs.endOfBatch()
                    }
                },
                axis: { [unowned self] code, value in outputs.gamepadAxis(code: code, value: value) },
                ended: { [unowned self, unowned loop] in
                    try outputs.sourceEnded()
                    loop.stop()
                },
                accelerometerRange: { [unowned self] range in fusion.useReportedAccelerometerRange(range) },
                resumed: { [unowned self] in fusion.sourceRestarted() }))
    }
}
