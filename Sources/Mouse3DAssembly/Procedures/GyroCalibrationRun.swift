import Mouse3DCore
import Mouse3DLinux

/// `calibrate`: measures a source's gyroscope bias once it has been still for `seconds`, saying how
/// far it is, starting over when it moves; stores the result in the driver's axes.
public enum GyroCalibrationRun {
    /// The loop's state, shared by its handlers.
    final class Progress {
        var calibrator: GyroCalibrator
        var reportedQuarter = 0
        init(seconds: Double) { calibrator = GyroCalibrator(seconds: seconds) }
    }

    /// Runs it on `opened` within `timeout` seconds; returns the line that says what was stored.
    /// Interrupted, ended or timed out without a result: an error saying what to do; nothing stored.
    public static func run(_ opened: OpenedSource, seconds: Double, timeout: Double, session: Session) throws
        -> String
    {
        let (sampleSource, device, axes) = (opened.source, opened.calibrationKey, opened.gamepadAxes)
        let (events, diagnostics) = (session.loop, session.diagnostics)
        let progress = Progress(seconds: seconds)
        diagnostics.say(
            "calibrating \(sampleSource.summary) (\(device)): put it down on a steady surface and leave it still for \(fixed(seconds, 0)) s"
        )
        let ending = try SampleFeed.run(sampleSource, timeout: timeout, session: session) { batch in
            for sample in batch {
                switch progress.calibrator.add(sample) {
                case .moved: diagnostics.say("it moved: starting again; leave it still")
                case .done:
                    events.stop()
                    return
                case .collecting(let done):
                    let quarter = Int(done * 4)
                    if quarter > progress.reportedQuarter {
                        progress.reportedQuarter = quarter
                        if quarter < 4 { diagnostics.say("still for \(fixed(done * seconds, 1)) s") }
                    } else if quarter < progress.reportedQuarter {
                        progress.reportedQuarter = quarter
                    }
                }
            }
        }
        if ending.interrupted {
            throw ActionableError("interrupted before it had been still for \(fixed(seconds, 0)) s; nothing stored")
        }
        guard let result = progress.calibrator.result else {
            let moves = progress.calibrator.restarts
            throw ActionableError(
                ending.sourceEnded
                    ? "the log has no \(fixed(seconds, 0)) s of stillness (it moved \(moves) time\(moves == 1 ? "" : "s")); nothing stored"
                    : "no \(fixed(seconds, 0)) s of stillness in \(fixed(timeout, 0)) s (it moved \(moves) time\(moves == 1 ? "" : "s")); "
                        + "nothing stored: put it down where nothing shakes it and try again")
        }
        // Kept in the driver's axes (the samples were in mouse3d's gamepad frame).
        let measured = GyroCalibration(
            device: device, biasRadiansPerSecond: result.bias, samples: result.samples,
            noiseRadiansPerSecond: result.noise)
        let calibration = axes?.toDriver(measured) ?? measured
        let path = try CalibrationStore.save(calibration)
        return
            "calibrated \(device): gyroscope bias \(calibration.summary), noise \(fixed(result.noise * 180 / .pi, 3)) °/s, from \(result.samples) samples; stored in \(path)"
    }
}
