import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

/// Options for live sensors, shared by `send` and `record`; each overrides the configuration.
struct LiveSourceOptions: ParsableArguments {
    @Option(help: "Read IIO sensors by polling their *_raw values at this rate (Hz) instead of through the buffer.")
    var iioPoll: Double?

    @Option(help: "Mount matrix override for IIO sensors, 'x1,y1,z1;x2,y2,z2;x3,y3,z3' (device = M · chip).")
    var mountMatrix: String?

    func validate() throws {
        if let iioPoll, !(iioPoll.isFinite && iioPoll > 0 && iioPoll <= 2000) {
            throw ValidationError("--iio-poll must be between 0 and 2000 Hz.")
        }
        if let mountMatrix, MountMatrix(mountMatrix) == nil {
            throw ValidationError(
                "--mount-matrix must be nine numbers, rows separated by ';', e.g. '0,1,0;-1,0,0;0,0,1'.")
        }
    }

    func addFlags(to layer: inout ConfigurationLayer) throws {
        if let iioPoll { try layer.set(.sendIIOPoll, iioPoll, origin: .flag("--iio-poll")) }
        if let mountMatrix { try layer.set(.sendMountMatrix, mountMatrix, origin: .flag("--mount-matrix")) }
    }
}
