import ArgumentParser

extension Mouse3D {
    /// `mouse3d bench`: figures a user can reproduce on their own machine.
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure fusion speed and accuracy.",
            subcommands: [
                BenchFusion.self, BenchAccuracy.self, BenchGyroMouse.self, BenchStream.self, BenchSeal.self,
                BenchOutput.self, BenchDSU.self, BenchFloorPeer.self
            ])
    }
}
