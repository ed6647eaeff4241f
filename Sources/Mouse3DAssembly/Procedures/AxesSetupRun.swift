import Mouse3DCore
import Mouse3DLinux

/// `calibrate --axes`: the guided set-up of a device's axes.
public enum AxesSetupRun {
    /// The guided `--axes` procedure: says each step, feeds the samples (in the frame the source
    /// turns them into) to ``AxesSetupProcedure``, and stores what it finds composed with that
    /// frame, so the setup turns the device's own axes.
    public static func run(_ opened: OpenedSource, timeout: Double, session: Session) throws -> String {
        let (source, device, frame) = (opened.source, opened.calibrationKey, opened.gamepadAxes)
        let (events, diagnostics) = (session.loop, session.diagnostics)
        final class State {
            var procedure: AxesSetupProcedure
            init(device: String) { procedure = AxesSetupProcedure(device: device) }
        }
        let state = State(device: device)
        diagnostics.say("setting up the axes of \(source.summary) (\(device)): three steps, about twenty seconds")
        diagnostics.say(AxesSetupProcedure.prompt(.still))
        let ending = try SampleFeed.run(source, timeout: timeout, session: session) { batch in
            for sample in batch where state.procedure.step != .done {
                switch state.procedure.add(sample) {
                case .moved: diagnostics.say("it moved: hold it still")
                case .next(.done): events.stop()
                case .next(let step): diagnostics.say(AxesSetupProcedure.prompt(step))
                case .refused(let why):
                    diagnostics.say("not taken: \(why)")
                    diagnostics.say("again: " + AxesSetupProcedure.prompt(state.procedure.step))
                case .holding, .waiting, .moving: break
                }
            }
        }
        if ending.interrupted { throw ActionableError("interrupted; nothing stored") }
        guard let found = state.procedure.result else {
            let step = state.procedure.step
            throw ActionableError(
                (ending.sourceEnded ? "the motion ended" : "no setup in \(fixed(timeout, 0)) s")
                    + " at \"\(AxesSetupProcedure.prompt(step))\""
                    + (state.procedure.refusals.last.map { " (last refused: \($0))" } ?? "")
                    + "; nothing stored: run it again (--timeout gives more time)")
        }
        let setup = frame?.composed(with: found) ?? found
        let path = try AxesSetupStore.save(setup)
        return
            "axes of \(device): \(setup.inWords); its accelerometer reads the \(setup.accelerometerSign > 0 ? "specific force" : "gravity vector"); stored in \(path)"
    }
}
