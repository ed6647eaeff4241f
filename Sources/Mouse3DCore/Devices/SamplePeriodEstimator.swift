/// A source's true sample period, from the monotonic times its reads returned, against the period
/// its driver's timestamps claim: their ratio tells a driver whose clock is off by a fixed factor.
///
/// hid-nintendo, for one, stamps samples from a whole-millisecond average of report arrivals in
/// 4 ms jiffies; when that average rounds 15 ms down to 14, every sample is stamped 6.7% short and
/// every angle integrated from it with it (ratio 0.933).
///
/// Arrival times are the truth plus a delay that is never negative and often large (scheduling,
/// a driver or a read that hands over several samples at once), so no single interval is trusted.
/// Over a window of the last `window` samples, each sample is paired with the one half a window
/// later; each pair's slope (seconds per sample) is the period plus the difference of two delays
/// divided by half a window of samples. The median of those slopes is the estimate: a burst, a
/// stall or a late read moves a few pairs, not the median, and the delays' common part cancels.
/// The driver's period comes from the same pairs, so a sample the driver or the reader lost counts
/// against both alike.
///
/// A host that stalls for a second or two (a starved VM, a Bluetooth link that queued) gets the
/// reports of the stall together: pairs with one end in that burst lie far off (a 1.5 s delay over
/// a 5 s half window: 0.77 or 1.43), and while the window is young they can be most of it. Delays
/// are never negative, so such a sample shows as one that arrived later than a later sample allows:
/// by more than ``lateSeconds`` beyond what the driver's time between them could take at the
/// fastest plausible clock. Pairs with a late end are left out; so are pairs outside
/// ``driverClockRatios`` (no driver's clock is that far off: hid-nintendo's rounding is 1 ms in 15,
/// 0.933). With fewer than a quarter of the pairs left there is no estimate (the one before stands).
///
/// A half-window pair counts every gap it spans (a lost report, a dropout) in its arrival time: right
/// for the ratio, whose driver time counts the gap too when the driver's clock does, but not the
/// time one sample takes. ``Estimate/samplePeriod`` is that: the median slope of short pairs
/// (``localSpan`` samples), so a gap moves a few of them only. The span is a multiple of three: with
/// three samples to a report (hid-nintendo's), 64 samples span 21 reports or 22, and the median of
/// that mix is 1.6% short; a mean of it is right only while delays are even (a trimmed mean came out
/// 1% long on a quiet VM, its start-up's late reports kept and their burst left out).
public struct SamplePeriodEstimator: Sendable {
    /// A figure from the window: the two periods, their ratio and how far the pairs spread.
    public struct Estimate: Sendable, Equatable {
        /// Seconds per sample by the arrival times (the true rate, as the host's clock counts it).
        public var arrivalPeriod: Double
        /// Seconds per sample by the driver's timestamps.
        public var driverPeriod: Double
        /// `driverPeriod / arrivalPeriod`: below 1, the driver's stamps run short.
        public var ratio: Double
        /// The ratio's uncertainty: the pairs' median absolute deviation over the square root of
        /// their number (a noise figure, not a bound).
        public var spread: Double
        /// Samples in the window.
        public var samples: Int
        /// Seconds one sample takes by arrival, gaps left out (see the type's note).
        public var samplePeriod: Double
    }

    /// The samples kept (older ones leave the window: a slowly drifting clock is followed).
    public let window: Int
    /// Samples needed before an estimate is given.
    public let minimumSamples: Int
    private var driverTimes: [Double]
    private var arrivalTimes: [Double]
    private var next = 0
    private var count = 0

    /// The ratios a driver's clock may have (see the type's note); nil: any (a caller whose
    /// "driver time" is a sample count, as ``RegularSampleClock``'s, where no band is known), and
    /// no sample is judged late.
    public let plausibleRatios: ClosedRange<Double>?

    /// `window`: samples kept; `minimumSamples`: before any estimate (at 200 Hz, 512 are 2.6 s);
    /// `plausibleRatios`: see the property.
    public init(
        window: Int = 2048, minimumSamples: Int = 512,
        plausibleRatios: ClosedRange<Double>? = Self.driverClockRatios
    ) {
        self.plausibleRatios = plausibleRatios
        precondition(window >= 8 && minimumSamples >= 8 && minimumSamples <= window)
        self.window = window
        self.minimumSamples = minimumSamples
        driverTimes = Array(repeating: 0, count: window)
        arrivalTimes = Array(repeating: 0, count: window)
    }

    /// One sample: the driver's timestamp and the time (seconds, monotonic) its read returned. A
    /// sample whose driver time does not advance is one the window cannot use: the caller's glitch
    /// handling sees it; here it is kept, and the median passes over it.
    public mutating func add(driverTime: Double, arrivalTime: Double) {
        driverTimes[next] = driverTime
        arrivalTimes[next] = arrivalTime
        next = (next + 1) % window
        count = min(count + 1, window)
    }

    /// Forgets every sample (a source that was reopened: its clock restarts).
    public mutating func reset() {
        next = 0
        count = 0
    }

    /// The estimate over the window, or nil before `minimumSamples` or when the samples give none
    /// (arrival or driver times that do not advance).
    public var estimate: Estimate? {
        guard count >= minimumSamples else { return nil }
        let half = count / 2
        let first = (next - count + window) % window
        var arrival: [Double] = []
        var driver: [Double] = []
        var ratios: [Double] = []
        arrival.reserveCapacity(count - half)
        driver.reserveCapacity(count - half)
        ratios.reserveCapacity(count - half)
        // Late samples: arrival − driver time / the fastest plausible clock never falls as time goes
        // on, unless this sample came late; a running minimum from the end finds them.
        var late = [Bool](repeating: false, count: count)
        if let band = plausibleRatios {
            let slowest = 1 / band.upperBound
            var laterMinimum = Double.infinity
            for i in stride(from: count - 1, through: 0, by: -1) {
                let k = (first + i) % window
                let value = arrivalTimes[k] - slowest * driverTimes[k]
                late[i] = value > laterMinimum + Self.lateSeconds
                laterMinimum = min(laterMinimum, value)
            }
        }
        for i in 0..<(count - half) where !late[i] && !late[i + half] {
            let a = (first + i) % window
            let b = (first + i + half) % window
            let arrivalSpan = arrivalTimes[b] - arrivalTimes[a]
            let driverSpan = driverTimes[b] - driverTimes[a]
            guard arrivalSpan > 0 && driverSpan > 0, plausibleRatios?.contains(driverSpan / arrivalSpan) ?? true else {
                continue
            }
            arrival.append(arrivalSpan / Double(half))
            driver.append(driverSpan / Double(half))
            ratios.append(driverSpan / arrivalSpan)
        }
        guard ratios.count >= 8 && ratios.count * 4 >= count - half else { return nil }
        let ratio = Self.median(&ratios)
        var deviations = ratios.map { abs($0 - ratio) }
        let spread = 1.4826 * Self.median(&deviations) / Double(ratios.count).squareRoot()
        let arrivalPeriod = Self.median(&arrival)
        return Estimate(
            arrivalPeriod: arrivalPeriod, driverPeriod: Self.median(&driver), ratio: ratio,
            spread: spread, samples: count, samplePeriod: samplePeriod(first: first) ?? arrivalPeriod)
    }

    /// Pairs this many samples apart give ``Estimate/samplePeriod`` (a multiple of three).
    public static let localSpan = 63

    /// The median slope of pairs ``localSpan`` apart (fewer while the window is young, still a
    /// multiple of three).
    private func samplePeriod(first: Int) -> Double? {
        let span = min(Self.localSpan, count / 12 * 3)
        guard span >= 3 else { return nil }
        var slopes: [Double] = []
        slopes.reserveCapacity(count - span)
        for i in 0..<(count - span) {
            let a = arrivalTimes[(first + i) % window]
            let b = arrivalTimes[(first + i + span) % window]
            if b > a { slopes.append((b - a) / Double(span)) }
        }
        guard slopes.count >= 8 else { return nil }
        return Self.median(&slopes)
    }

    /// The ratios a driver's clock may have; a pair outside is the host's delivery, not the clock.
    public static let driverClockRatios = 0.8...1.25
    /// A sample that came this much later than a later one allows is late (queued in a stall).
    public static let lateSeconds = 0.05

    /// Whether the driver's stamps are off by more than noise: the ratio is further than 0.5% from
    /// 1 and than four times its spread (a 1 kHz source read in bursts by a busy host keeps a
    /// spread of a few 0.01%).
    public static func isOff(_ estimate: Estimate) -> Bool {
        abs(estimate.ratio - 1) > max(0.005, 4 * estimate.spread)
    }

    static func median(_ values: inout [Double]) -> Double {
        values.sort()
        let n = values.count
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }
}
