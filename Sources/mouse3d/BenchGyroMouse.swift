import ArgumentParser
import Mouse3DBench
import Mouse3DCore

extension Mouse3D {
    /// `mouse3d bench gyro-mouse`: the fusion and the pointer mapping against a simulated hand.
    struct BenchGyroMouse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gyro-mouse",
            abstract:
                "How good a gyro mouse the fusion and pointer settings make, on simulated motion with exact truth.",
            discussion: """
                A controller with a gyroscope bias of 0.6/-0.5/0.8 °/s and noise, at 250 Hz: drift at rest \
                (°/min and px/min, with bias estimation and without it, as a tool that does not calibrate \
                shows), bias convergence after power-up, rest jitter, the scale of a 360° turn, gyro-space \
                leakage with the grip rolled 30° (every space), and the lag smoothing adds at a slow and a \
                fast speed. The pointer settings are the configuration's and the flags'.
                """)

        @OptionGroup var pointer: PointerOptions

        @Option(
            help:
                "Also draw the pointer's drift over the 10 minutes at rest, with and without bias estimation, as PNG (with its CSV) in this folder (needs gnuplot)."
        )
        var plot: String?

        @OptionGroup var filter: FilterOptions

        func run() throws {
            if let plot { try preparePlotFolder(plot) }
            let flags = try EffectiveConfiguration.flags {
                try pointer.addFlags(to: &$0)
                try filter.addFlags(to: &$0)
            }
            let configuration = try EffectiveConfiguration.load(flags: flags)
            let mapping = try PointerOptions.mapping(configuration)
            let parameters = try filter.parameters()
            print(
                "pointer: \(fixed(mapping.countsPerDegree, 2)) counts per degree, gyro space \(mapping.gyroSpace.rawValue), "
                    + "smoothing \(mapping.smoothingDegreesPerSecond > 0 ? "below \(fixed(mapping.smoothingDegreesPerSecond, 1)) °/s" : "off"), "
                    + "tightening \(mapping.tighteningDegreesPerSecond > 0 ? "below \(fixed(mapping.tighteningDegreesPerSecond, 1)) °/s" : "off")"
            )
            for f in GyroMouseBenchmark.run(parameters: parameters, mapping: mapping) {
                print(
                    f.name.rightPadded(to: 44) + fixed(f.value, 4, width: 10) + " " + f.unit.rightPadded(to: 7) + "  "
                        + f.detail)
            }
            if let plot { try drawPlot(in: plot, parameters: parameters, mapping: mapping) }
        }
    }
}

extension Mouse3D.BenchGyroMouse {
    /// The pointer's drift at rest after power-up, drawn in `plot`.
    func drawPlot(in plot: String, parameters: AttitudeEstimatorParameters, mapping: PointerMapping) throws {
        let traces = GyroMouseBenchmark.restTraces(parameters: parameters, mapping: mapping)
        do {
            let path = try Plot.draw(
                directory: plot, name: "gyro-mouse-rest-drift",
                title:
                    "Pointer drift at rest after power-up (gyroscope bias 0.6/-0.5/0.8 °/s): distance from its place at 60 s",
                x: traces.seconds, xLabel: "time after power-up (s)", yLabel: "pointer distance (px)",
                series: [
                    .init("mouse3d (bias estimated)", traces.estimated),
                    .init("without bias estimation", traces.blind)
                ])
            print("plot: \(path)")
        } catch {
            throw CommandFailure("--plot: \(error)")
        }
    }
}
