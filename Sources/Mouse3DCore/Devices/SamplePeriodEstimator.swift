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
    }

    /// The samples kept (older ones leave the window: a slowly drifting clock is followed).
    public let window: Int
    /// Samples needed before an estimate is given.
    public let minimumSamples: Int
    private var driverTimes: [Double]
    private var arrivalTimes: [Double]
    private var next = 0
    private var count = 0

    /// `window`: samples kept; `minimumSamples`: before any estimate (at 200 Hz, 512 are 2.6 s).
    public init(window: Int = 2048, minimumSamples: Int = 512) {
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
        for i in 0..<(count - half) {
            let a = (first + i) % window
            let b = (first + i + half) % window
            let arrivalSpan = arrivalTimes[b] - arrivalTimes[a]
            let driverSpan = driverTimes[b] - driverTimes[a]
            guard arrivalSpan > 0 && driverSpan > 0 else { continue }
            arrival.append(arrivalSpan / Double(half))
            driver.append(driverSpan / Double(half))
            ratios.append(driverSpan / arrivalSpan)
        }
        guard ratios.count >= 8 else { return nil }
        let ratio = Self.median(&ratios)
        var deviations = ratios.map { abs($0 - ratio) }
        let spread = 1.4826 * Self.median(&deviations) / Double(ratios.count).squareRoot()
        return Estimate(
            arrivalPeriod: Self.median(&arrival), driverPeriod: Self.median(&driver), ratio: ratio,
            spread: spread, samples: count)
    }

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
