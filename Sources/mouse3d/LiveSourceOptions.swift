import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

/// Options for live sensors, shared by `send` and `record`.
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
            throw ValidationError("--mount-matrix must be nine numbers, rows separated by ';', e.g. '0,1,0;-1,0,0;0,0,1'.")
        }
    }

    var mount: MountMatrix? { mountMatrix.flatMap(MountMatrix.init) }

    /// Opens `request` with these options, ready to follow it through unplugging; a failure becomes
    /// the one-line message the user sees.
    func follow(
        _ request: MotionSourceRequest, watchingButtons buttons: Set<Int32> = [], signals: SignalDescriptor, diagnostics: Diagnostics
    ) throws -> MotionSourceFollower {
        do {
            return try MotionSourceFollower(
                request, iioPollHertz: iioPoll, mountOverride: mount, watchingButtons: buttons, signals: signals, report: diagnostics.say)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
