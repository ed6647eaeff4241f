import ArgumentParser
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d list`: the motion sources this machine offers.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every usable motion source: evdev motion devices and IIO accelerometers/gyroscopes.")

        @Flag(help: "Print JSON (an array of objects) instead of a table.")
        var json = false

        func run() throws {
            let sources: [MotionSourceInfo]
            do {
                sources = try MotionSourceSelector.list()
            } catch {
                throw CommandFailure("cannot enumerate devices: \(error)")
            }
            if json {
                print(JSONText.objectArray(sources.map(Self.json)))
                return
            }
            guard !sources.isEmpty else {
                print(
                    "No motion sensors found: no evdev device with INPUT_PROP_ACCELEROMETER and no IIO accelerometer or gyroscope."
                )
                print(
                    "Plug in a controller (DualShock 4, DualSense, Switch Pro, ...) or use a recorded log: mouse3d send --source replay:LOG.csv"
                )
                return
            }
            for s in sources {
                let sensors = [s.hasAccelerometer ? "accelerometer" : nil, s.hasGyroscope ? "gyroscope" : nil]
                    .compactMap { $0 }
                print("\(s.kind.rawValue):\(s.kind == .evdev ? (s.node ?? "?") : s.name)  '\(s.name)'")
                print(
                    "    \(s.node.map { "node \($0), \(Self.access($0))" } ?? "no device node"), sensors: \(sensors.joined(separator: " + "))"
                        + (s.samplingFrequencyHertz.map { ", \(fixed($0, 0)) Hz" } ?? "")
                        + (s.uniqueID.map { ", uniq \($0)" } ?? ""))
                print("    sysfs \(s.sysfsPath)")
                print("    axes: \(TerminalText.escaped(s.axesOrigin))")
            }
        }

        static func access(_ node: String?) -> String {
            guard let node else { return "no node" }
            return FileSystem.isReadable(node) ? "readable" : "not readable by you (see udev/70-mouse3d.rules)"
        }

        static func json(_ s: MotionSourceInfo) -> String {
            func str(_ v: String?) -> String { JSONText.string(v) }
            func num(_ v: Double?) -> String { v.map { "\($0)" } ?? "null" }
            return
                "{\"kind\":\(str(s.kind.rawValue)),\"name\":\(str(s.name)),\"node\":\(str(s.node)),\"sysfs\":\(str(s.sysfsPath)),"
                + "\"accelerometer\":\(s.hasAccelerometer),\"gyroscope\":\(s.hasGyroscope),\"readable\":\(s.node.map(FileSystem.isReadable) ?? false),"
                + "\"rate_hz\":\(num(s.samplingFrequencyHertz)),\"accelerometer_scale\":\(num(s.accelerometerScale)),"
                + "\"gyroscope_scale\":\(num(s.gyroscopeScale)),\"uniq\":\(str(s.uniqueID)),"
                + "\"hwdb_mount_matrix\":\(str(s.hwdbMountMatrix)),\"axes\":\(str(s.axesOrigin))}"
        }
    }
}
