import Mouse3DCore
import Mouse3DLinux

/// `output` as it is, or fed at `hertz` (the `--rate` of send and run) from now on.
func paced(_ output: any AttitudeOutput, hertz: Double?) -> any AttitudeOutput {
    guard let hertz else { return output }
    return PacedOutput(output, hertz: hertz, start: MonotonicClock.nanoseconds())
}
