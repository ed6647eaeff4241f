/// Sample times on the sensor's own regular grid, from stamps taken when each sample arrived.
///
/// A sensor samples on its own clock, at a steady period; an IIO driver with no timestamp from the
/// sensor (a HID sensor hub without the timestamp usage, for one) stamps each sample when its
/// report arrives, which is the sample's time plus a delay that is never negative and varies
/// (the bus, the hub's firmware, a busy machine). Integrated as they are, those stamps give each
/// sample the delay's change as extra or missing time; over a stretch of steady motion the errors
/// cancel, but where the rate changes (a turn starting, a tilt ending) the delay at that moment
/// stays in the angle: a 30° tilt and its way back came out up to 40 pointer counts apart.
///
/// The clock gives sample `n` the time `anchor + n · period` instead:
/// - the period is the arrivals' own median spacing over a long window
///   (``SamplePeriodEstimator``), found after `minimumSamples` (until then, arrival stamps pass
///   through unchanged);
/// - the grid follows the arrivals' lower envelope: a sample that arrives *before* its grid time
///   pulls the grid back to it at once (the grid was late); when every sample of a stretch of
///   `envelopeSamples` arrived late, and they arrived at the sensor's pace (not crowded together),
///   the grid moves forward by the least of those delays (the period was a little short, or
///   samples were lost, whose time then lands on one sample).
/// A burst after a stall (samples late by less and less, crowded together) leaves the grid where it
/// was. Times never go back, and successive times are at least a quarter period apart.
public struct RegularSampleClock: Sendable {
    /// Samples over which the least delay is taken before the grid moves forward.
    public let envelopeSamples: Int
    private let window: Int
    private let minimumSamples: Int
    private var periods: SamplePeriodEstimator
    private var index = 0
    private var period: Double?
    private var last: Double?
    private var leastDelay = Double.infinity
    private var stretch = 0
    private var stretchFirstArrival = 0.0
    /// Samples given a grid time (the others passed their arrival through).
    public private(set) var regularised = 0
    /// How often the grid was pulled back (an early sample) or moved forward (all late).
    public private(set) var pulledBack = 0
    public private(set) var movedForward = 0

    /// `window` and `minimumSamples`: the period estimator's (at 100 Hz, 256 samples are 2.6 s).
    public init(window: Int = 1024, minimumSamples: Int = 256, envelopeSamples: Int = 64) {
        periods = SamplePeriodEstimator(window: window, minimumSamples: minimumSamples, plausibleRatios: nil)
        self.window = window
        self.minimumSamples = minimumSamples
        self.envelopeSamples = envelopeSamples
    }

    /// The period in use (seconds), once known.
    public var periodSeconds: Double? { period.map { $0 * 1e-9 } }

    /// The time (ns) to give the sample that arrived at `arrivalNanoseconds`.
    public mutating func time(arrivalNanoseconds: Int64) -> Int64 {
        let arrival = Double(arrivalNanoseconds)
        periods.add(driverTime: Double(index), arrivalTime: arrival * 1e-9)
        index += 1
        if index % 64 == 0, let estimate = periods.estimate { period = estimate.arrivalPeriod * 1e9 }
        guard let period, let previous = last else {
            last = arrival
            return arrivalNanoseconds
        }
        var t = previous + period
        let delay = arrival - t
        if delay < 0 {
            // Earlier than the grid: the grid was late. Pulled back to the arrival, never behind
            // the sample before.
            t = max(arrival, previous + period / 4)
            pulledBack += 1
            leastDelay = .infinity
            stretch = 0
        } else {
            leastDelay = min(leastDelay, delay)
            if stretch == 0 { stretchFirstArrival = arrival }
            stretch += 1
            if stretch >= envelopeSamples {
                // Late at the sensor's pace (at least 90% of it): an offset. Crowded: a burst.
                if leastDelay > 0 && arrival - stretchFirstArrival >= 0.9 * Double(stretch - 1) * period {
                    t += leastDelay
                    movedForward += 1
                }
                leastDelay = .infinity
                stretch = 0
            }
        }
        last = t
        regularised += 1
        return Int64(t.rounded())
    }

    /// Forgets everything (a reopened source: its clock restarts).
    public mutating func reset() {
        self = RegularSampleClock(window: window, minimumSamples: minimumSamples, envelopeSamples: envelopeSamples)
    }
}
