import Mouse3DCore
import Mouse3DLinux

/// The middle of `run` and `send`: an opened source fused into attitudes for `outputs`, from the
/// device's stored gyroscope calibration, with the controller's buttons mapped and what a
/// recalibrate button measures stored.
public struct FusionStage {
    /// Source → fusion → outputs.
    public let pipeline: MotionPipeline
    /// What the start-up line says of the calibration ("gyroscope bias … from calibration").
    public let calibration: String

    /// Fuses `opened` with `parameters` (the filter) into `outputs`, with `observers` watching the
    /// source itself (a DSU server: every sample, whatever paces the outputs).
    public init(
        _ opened: OpenedSource, parameters: AttitudeEstimatorParameters, outputs: [any AttitudeOutput],
        observers: [any SourceObserver] = [], diagnostics: Diagnostics
    ) throws {
        let stored = try CalibrationStore.load(device: opened.calibrationKey)
        let fusion = MotionFusion(
            parameters: parameters,
            clutchMode: opened.buttons?.map.clutch == nil ? nil : opened.buttons?.clutchMode,
            calibration: stored.map { opened.gamepadAxes?.fromDriver($0) ?? $0 }, device: opened.calibrationKey)
        calibration =
            stored.map { "gyroscope bias \($0.summary) from calibration" }
            ?? "gyroscope not calibrated (mouse3d calibrate), learning its bias"
        pipeline = MotionPipeline(
            source: opened.source, fusion: fusion, buttons: opened.buttons?.map ?? GamepadButtonMap(),
            outputs: AttitudePipeline(outputs: outputs, observers: observers), report: diagnostics.say)
        // What a recalibrate button measures is stored, in the driver's axes, and said.
        let axes = opened.gamepadAxes
        pipeline.onCalibrated = { measured in
            let calibration = axes?.toDriver(measured) ?? measured
            do {
                let path = try CalibrationStore.save(calibration)
                diagnostics.say(
                    "calibrated: gyroscope bias \(calibration.summary) from \(calibration.samples) samples, in use; stored in \(path)"
                )
            } catch {
                diagnostics.say("calibrated: gyroscope bias \(calibration.summary), in use, but not stored: \(error)")
            }
        }
    }
}
