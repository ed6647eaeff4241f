/// Joins separate accelerometer and gyroscope streams (two IIO devices) into 6-axis samples.
///
/// A sample is made for every gyroscope reading, with the latest accelerometer reading (held);
/// gyroscope readings that come before any accelerometer reading are dropped and counted. The
/// gyroscope drives the timing because integration needs every rate sample; the accelerometer
/// only corrects slowly, so holding it for one period costs nothing measurable.
public struct MotionSampleMerger: Sendable {
    private var latestAccelerometer: SIMD3<Double>?
    /// Gyroscope readings dropped because no accelerometer reading had arrived yet.
    public private(set) var droppedBeforeFirstAccelerometer = 0

    /// An empty merger.
    public init() {}

    /// Feeds an accelerometer reading (m/s²).
    public mutating func accelerometer(_ value: SIMD3<Double>) {
        latestAccelerometer = value
    }

    /// Feeds a gyroscope reading (rad/s) taken at `timestampNanoseconds`; returns its sample.
    public mutating func gyroscope(_ value: SIMD3<Double>, timestampNanoseconds t: Int64) -> MotionSample? {
        guard let accel = latestAccelerometer else {
            droppedBeforeFirstAccelerometer += 1
            return nil
        }
        return MotionSample(
            timestampNanoseconds: t, angularVelocityRadiansPerSecond: value, specificForceMetersPerSecondSquared: accel)
    }
}
