/// Joins separate accelerometer and gyroscope streams (two IIO devices) into 6-axis samples.
///
/// A sample is made for every gyroscope reading (the gyroscope drives the timing because
/// integration needs every rate sample), with the accelerometer as it was at the gyroscope's
/// time: interpolated between the readings either side of it when both have arrived, else the
/// nearest one. Readings arrive in batches (a process that was late reads several periods of each
/// device at once), so "the latest accelerometer reading" would pair a gyroscope reading with one
/// from periods later, and the fusion would see gravity move ahead of the rotation (a bias it then
/// learns in motion). Gyroscope readings that come before any accelerometer reading are dropped
/// and counted.
public struct MotionSampleMerger: Sendable {
    /// Accelerometer readings in time order: the last one at or before the latest gyroscope time,
    /// and every one after it.
    private var readings: [(time: Int64, value: SIMD3<Double>)] = []
    /// Gyroscope readings dropped because no accelerometer reading had arrived yet.
    public private(set) var droppedBeforeFirstAccelerometer = 0
    /// Readings kept at most (a second's worth at 64 Hz and more: far more than any batch).
    static let capacity = 256

    /// An empty merger.
    public init() {}

    /// Feeds an accelerometer reading (m/s²) taken at `timestampNanoseconds`.
    public mutating func accelerometer(_ value: SIMD3<Double>, timestampNanoseconds t: Int64) {
        if let last = readings.last, t < last.time {
            readings.removeAll()  // a clock that went back: start again from this one
        }
        readings.append((t, value))
        if readings.count > Self.capacity { readings.removeFirst(readings.count - Self.capacity) }
    }

    /// Feeds a gyroscope reading (rad/s) taken at `timestampNanoseconds`; returns its sample.
    public mutating func gyroscope(_ value: SIMD3<Double>, timestampNanoseconds t: Int64) -> MotionSample? {
        guard let first = readings.first else {
            droppedBeforeFirstAccelerometer += 1
            return nil
        }
        // Forget what lies before the last reading at or before t.
        var keepFrom = 0
        while keepFrom + 1 < readings.count && readings[keepFrom + 1].time <= t { keepFrom += 1 }
        if keepFrom > 0 { readings.removeFirst(keepFrom) }
        let accel: SIMD3<Double>
        let before = readings[0]
        if before.time > t {
            accel = first.value  // every reading is later: the earliest
        } else if readings.count > 1 {
            let after = readings[1]
            let f = Double(t - before.time) / Double(after.time - before.time)
            accel = before.value + (after.value - before.value) * f
        } else {
            accel = before.value
        }
        return MotionSample(
            timestampNanoseconds: t, angularVelocityRadiansPerSecond: value, specificForceMetersPerSecondSquared: accel)
    }
}
