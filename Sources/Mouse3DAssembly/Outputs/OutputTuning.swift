import Mouse3DCore

/// What a configuration reload may change in running outputs.
public struct OutputTuning {
    /// The print format.
    public var format: AttitudePrintFormat
    /// The pointer's tuning.
    public var mapping: PointerMapping
    /// The gamepad's gyro stick.
    public var gyroStick: GyroStickMapping

    /// Tuning from its parts.
    public init(format: AttitudePrintFormat, mapping: PointerMapping, gyroStick: GyroStickMapping) {
        self.format = format
        self.mapping = mapping
        self.gyroStick = gyroStick
    }
}
