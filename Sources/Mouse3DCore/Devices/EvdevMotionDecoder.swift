import RealModule

/// Turns the events of an evdev motion device (`INPUT_PROP_ACCELEROMETER`: ABS_X/Y/Z acceleration,
/// ABS_RX/RY/RZ angular rate, MSC_TIMESTAMP) into ``MotionSample``s, one per sensor report: every
/// `SYN_REPORT` that carries an MSC_TIMESTAMP or a changed axis. (The kernel drops axis events
/// whose value did not change, so a steady sensor's reports may hold only the timestamp; they are
/// samples all the same.)
///
/// Units follow the axes' resolutions: acceleration in units per g, angular rate in units per °/s
/// (Documentation/input/event-codes.rst, INPUT_PROP_ACCELEROMETER); the axis centre is subtracted.
/// Sample times come from MSC_TIMESTAMP (µs, 32 bits, wrapping), unwrapped to a continuous clock;
/// where a frame has none, the event time is used. A driver whose stamps run fast or slow against
/// the kernel's event times (when its reports came in) by more than noise, over the last 2048
/// samples, has its steps scaled by the ratio (``SamplePeriodEstimator``): hid-nintendo stamps from
/// a rounded average of report intervals, 6.7% short when 15 ms rounds to 14. Which drivers may
/// be corrected, and how, is the caller's to say (``StampClock``, from the driver's source): a
/// driver that counts the controller's clock (hid-playstation, hid-sony) never is, because under
/// load the arrivals, not the crystal, run off (a busy run found the window's ratio for an honest
/// emulated DualSense at 0.976 and 1.007, and applying it turned 1800 counts into 1825).
///
/// That average is taken anew every 300 reports, and a controller reporting every 15 ms (the
/// Switch controllers over Bluetooth) lands either side of the rounding from one to the next: its
/// stamps are right for 4.5 s, then 6.7% short, then right again, and a ratio over a 10 s window
/// is wrong for both. A decoder told its driver computes its stamps so (``StampClock/computed``: the
/// caller knows the driver, hid-nintendo) corrects each step on its own, by its ratio to the time
/// a sample takes by arrival (gaps left out), also after a dropout, whose time the driver's next
/// average counts (1.33 for a 1.5 s gap). Other drivers count a device's clock; telling them
/// apart by their steps failed: a counting clock's steps can be all alike (the emulated
/// DualSense's are), and then its lost samples made the arrival period long and the turn 11% large.
/// A driver mouse3d does not know (``StampClock/unknown``) keeps the window's ratio.
public struct EvdevMotionDecoder: Sendable {
    /// What the decoder needs to know about one axis.
    public struct Axis: Sendable, Equatable {
        /// The axis centre (`(minimum + maximum) / 2`, usually 0).
        public var center: Double
        /// Units per g (acceleration) or per °/s (rate).
        public var resolution: Double

        /// Creates an axis description.
        public init(center: Double, resolution: Double) {
            self.center = center
            self.resolution = resolution
        }
    }

    /// Event codes (from `<linux/input-event-codes.h>`).
    public enum Code {
        public static let synReport: Int32 = 0, synDropped: Int32 = 3
        public static let evSyn: Int32 = 0, evAbs: Int32 = 3, evMsc: Int32 = 4
        public static let mscTimestamp: Int32 = 5
        /// ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ.
        public static let motionAxes: [Int32] = [0, 1, 2, 3, 4, 5]
    }

    /// Accelerometer axes x, y, z and gyroscope axes x, y, z.
    public let axes: [Axis]
    /// Current raw values of ABS_X..ABS_RZ.
    private var raw: [Int32]
    private var changed = false
    private var frameTimestampMicroseconds: UInt32?
    private var lastTimestampMicroseconds: UInt32?
    private var lastEventTimeNanoseconds: Int64 = 0
    private var unwrappedMicroseconds: Int64 = 0
    /// The offset from the device clock to event time, fixed at the first sample.
    private var clockOffsetNanoseconds: Int64?
    /// Frames that had no MSC_TIMESTAMP and used the event time.
    public private(set) var framesWithoutTimestamp = 0
    /// The driver's stamps against the kernel's event times (when each report came in): a driver
    /// whose clock is off by a fixed ratio is corrected (hid-nintendo's 14 ms rounding: 0.933).
    private var periods = SamplePeriodEstimator()
    private var samplesSinceEstimate = 0
    /// The ratio the timestamps are corrected by (driver period / true period); 1 while the
    /// driver's clock agrees with the event times within noise.
    public private(set) var timestampRatio = 1.0
    /// The latest estimate, also when no correction was needed.
    public private(set) var timestampEstimate: SamplePeriodEstimator.Estimate?
    private var correctedNanoseconds: Int64 = 0
    /// Where the driver's stamps come from: counted ones are kept, computed ones corrected step
    /// by step, unknown ones by the window's ratio.
    public let stamps: StampClock
    /// Whether the driver's steps are computed (hid-nintendo's), each corrected on its own.
    public var computedSteps: Bool { stamps == .computed }
    /// The step the per-step ratio was last taken from (µs).
    public private(set) var correctedStep: Int64 = 0
    /// The driver's last computed step that agreed with the arrivals (µs), and whether the last
    /// step that did not was set to it rather than to the arrivals' estimate.
    public private(set) var agreedStep: Int64?
    public private(set) var setToAgreedStep = false
    /// Time the device's clock fell short of the arrivals (ns) in one step, waiting to be paid
    /// back by a burst (a host stall) or, a second later, added (a dropout the clock did not
    /// count), and when it began (event time).
    private var deficitNanoseconds: Int64 = 0
    private var deficitSince: Int64 = 0

    /// A decoder for a device with these six axes (ABS_X..ABS_RZ) and their current values, whose
    /// driver's stamps come from `stamps` (see the type's note).
    public init(axes: [Axis], initialValues: [Int32], stamps: StampClock = .unknown) {
        precondition(axes.count == 6 && initialValues.count == 6, "six motion axes")
        self.axes = axes
        raw = initialValues
        self.stamps = stamps
    }

    /// Feeds one event; returns a sample when it ends a frame that changed the motion.
    /// `resynchronised`: an event of libevdev's resync after SYN_DROPPED (see ``resynchronising()``).
    public mutating func feed(
        type: Int32, code: Int32, value: Int32, eventTimeNanoseconds: Int64, resynchronised: Bool = false
    ) -> MotionSample? {
        switch type {
        case Code.evAbs where (0...5).contains(code):
            raw[Int(code)] = value
            changed = true
        case Code.evMsc where code == Code.mscTimestamp:
            frameTimestampMicroseconds = UInt32(bitPattern: value)
            changed = true
        case Code.evSyn where code == Code.synReport:
            defer {
                changed = false
                frameTimestampMicroseconds = nil
            }
            // The resync's frame is the device's state now, with no report's time: it updates the
            // values, and the next report's stamp measures the gap on the device's clock.
            guard changed, !resynchronised else { return nil }
            return MotionSample(
                timestampNanoseconds: timestamp(eventTimeNanoseconds: eventTimeNanoseconds),
                angularVelocityRadiansPerSecond: SIMD3((3..<6).map { physical(at: $0) * .pi / 180 }),
                specificForceMetersPerSecondSquared: SIMD3(
                    (0..<3).map { physical(at: $0) * standardGravityMetersPerSecondSquared }))
        default:
            break
        }
        return nil
    }

    /// The kernel dropped events (SYN_DROPPED: the reader fell behind and evdev's buffer
    /// overflowed; libevdev then discards what was queued and reads the state back). Call this when
    /// the resync begins, then feed its events with `resynchronised`: they update the values and
    /// make no sample. The driver received every report meanwhile, so its clock went on counting:
    /// the next report's stamp, stepped from the last one before the gap, is the time the gap
    /// took, and the fusion integrates it at the rate after it (a steady turn loses nothing).
    /// Without stamps the event times measure it the same way. The estimate of the driver's clock
    /// against arrivals starts again: the reports after a starved reader's gap arrive late together
    /// (a ratio taken across it turned an unknown driver's turn 8° short).
    public mutating func resynchronising() {
        periods.reset()
        changed = false
        frameTimestampMicroseconds = nil
    }

    private func physical(at index: Int) -> Double {
        let axis = axes[index]
        return (Double(raw[index]) - axis.center) / axis.resolution
    }

    private mutating func timestamp(eventTimeNanoseconds: Int64) -> Int64 {
        guard let stamp = frameTimestampMicroseconds else {
            framesWithoutTimestamp += 1
            lastTimestampMicroseconds = nil
            clockOffsetNanoseconds = nil
            return eventTimeNanoseconds
        }
        let eventStep = eventTimeNanoseconds - lastEventTimeNanoseconds
        lastEventTimeNanoseconds = eventTimeNanoseconds
        // The device's step may fall short of the event step: the host stalled and the reports
        // queued, then came together (a starved VM, a busy Bluetooth link); the device's clock is
        // the truth, and the burst pays the shortfall back. A shortfall of a second or more not
        // paid back within a second is time the device's clock did not count (a DualShock 4's
        // 16-bit clock wraps every 349.5 ms; hid-nintendo stamps through a dropout): it is added
        // then. A step more than a second beyond the event step is the device clock jumping (a
        // reset, a reconnect; backwards wraps to a huge step): re-anchored.
        if let last = lastTimestampMicroseconds,
            Int64(stamp &- last) * 1000 - eventStep < 1_000_000_000
        {
            let step = Int64(stamp &- last)  // modulo 2³²: wraps are followed
            correctComputed(step)
            unwrappedMicroseconds += step
            let stepNanoseconds =
                timestampRatio == 1 ? step * 1000 : Int64((Double(step) * 1000 / timestampRatio).rounded())
            correctedNanoseconds += stepNanoseconds
            // Against the corrected step: hid-nintendo's stamps after a dropout run long (its next
            // average counts the gap) and are corrected back; they pay nothing back.
            let shortfall = eventStep - stepNanoseconds
            if deficitNanoseconds == 0 {
                if shortfall >= 1_000_000_000 {
                    deficitNanoseconds = shortfall
                    deficitSince = eventTimeNanoseconds
                }
            } else {
                deficitNanoseconds += shortfall
                if deficitNanoseconds < 50_000_000 {
                    deficitNanoseconds = 0  // paid back: a stall
                } else if eventTimeNanoseconds - deficitSince > 1_000_000_000 {
                    correctedNanoseconds += deficitNanoseconds
                    unwrappedMicroseconds += deficitNanoseconds / 1000
                    deficitNanoseconds = 0
                }
            }
        } else {
            // First frame, or the device clock jumped (a reset, a reconnect): re-anchor.
            unwrappedMicroseconds = 0
            correctedNanoseconds = 0
            periods.reset()
            deficitNanoseconds = 0
            // Anchor the device clock to the event clock once, so samples keep the device's spacing.
            clockOffsetNanoseconds = eventTimeNanoseconds
        }
        lastTimestampMicroseconds = stamp
        periods.add(driverTime: Double(unwrappedMicroseconds) * 1e-6, arrivalTime: Double(eventTimeNanoseconds) * 1e-9)
        samplesSinceEstimate += 1
        if samplesSinceEstimate >= 256 {  // the median over the window costs; a ratio does not change fast
            samplesSinceEstimate = 0
            if let estimate = periods.estimate {
                timestampEstimate = estimate
                if stamps == .unknown {
                    timestampRatio = SamplePeriodEstimator.isOff(estimate) ? estimate.ratio : 1
                }
            }
        }
        return (clockOffsetNanoseconds ?? eventTimeNanoseconds) + correctedNanoseconds
    }

    /// A computed step that disagrees with the time a sample takes by arrival is set to the
    /// driver's last step that agreed, while that one still agrees, and otherwise to the arrivals'
    /// estimate. hid-nintendo's average of a 15 ms pad flips between 15 and 14 from one 300-report
    /// update to the next (its jiffy-rounded window falls either side of 4500 ms); the 15 is
    /// exact, and the arrivals are not: a busy host put them 0.1% to 0.2% slow, which made a
    /// turn count 1801 and the way back 1799 when the 14-stretches took the arrivals' value.
    /// Either way a kept step is within ``computedStepTolerance`` of the arrivals.
    private mutating func correctComputed(_ step: Int64) {
        guard computedSteps, let estimate = timestampEstimate, estimate.samplePeriod > 0 else { return }
        let ratio = Double(step) * 1e-6 / estimate.samplePeriod
        // Sanity only: a computed step can be far off (hid-nintendo's average after a dropout).
        guard ratio > 0.5 && ratio < 2 else { return }
        let tolerance = max(Self.computedStepTolerance, 4 * estimate.spread)
        correctedStep = step
        computedStepsSeen += 1
        if abs(ratio - 1) <= tolerance {
            timestampRatio = 1
            // The driver's default (15 ms) until its first average is no measurement: a pad
            // reporting every 14.96 ms agrees with it (0.26%), then averages 14 for ever.
            if computedStepsSeen > Self.driverDefaultSteps { agreedStep = step }
            setToAgreedStep = false
        } else if let agreed = agreedStep, abs(Double(agreed) * 1e-6 / estimate.samplePeriod - 1) <= tolerance {
            timestampRatio = Double(step) / Double(agreed)
            setToAgreedStep = true
        } else {
            timestampRatio = ratio
            setToAgreedStep = false
        }
    }

    /// How far a computed step may be from the time a sample takes by arrival and be left as it
    /// is. hid-nintendo's step is a third of a whole-millisecond average of report intervals, so
    /// for a pad reporting every whole number of milliseconds (every 15 ms over Bluetooth) it is
    /// either right or a millisecond of the interval off: 6.7% at 15 ms, 2% at 50 ms; a dropout
    /// makes it 1.33. A smaller difference is the arrivals' error, not the driver's: a busy host
    /// delivering reports late, then together, moved the arrival estimate 0.6% (a Joy-Con's turn
    /// 11 counts of 1800 short in a `--busy` run at 0.5% tolerance).
    public static let computedStepTolerance = 0.02

    /// hid-nintendo's steps before its first average: JC_IMU_DFLT_AVG_DELTA_MS until 300 report
    /// intervals were summed (JC_IMU_SAMPLES_PER_DELTA_AVG), three samples a report.
    public static let driverDefaultSteps = 3 * 301
    private var computedStepsSeen = 0
}
