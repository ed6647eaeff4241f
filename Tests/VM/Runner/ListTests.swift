import Mouse3DLinux
import VMDeviceEmulators

enum ListTests {
    /// Runs `mouse3d list` with `arguments`; returns its exit status and standard output.
    static func list(_ arguments: [String] = []) throws -> (Int32, String) {
        let path = "/tmp/list-\(MonotonicClock.nanoseconds()).txt"
        let child = try ChildProcess(executable: mouse3d, arguments: ["list"] + arguments, standardOutputPath: path)
        let status = try child.wait()
        return (status, String(decoding: try FileContents.read(path: path), as: UTF8.self))
    }

    /// With no motion sensor at all (this runs before any emulator exists), `list` says so plainly
    /// and exits 0; `--json` prints an empty array.
    static func withoutSensors() throws {
        let (status, text) = try list()
        try expect(status == 0, "exit status \(status)")
        try expect(text.hasPrefix("No motion sensors found"), "output: \(text)")
        let (jsonStatus, json) = try list(["--json"])
        try expect(jsonStatus == 0 && json.filter { !$0.isWhitespace } == "[]", "json: \(json)")
    }

    /// With a DualSense plugged in, `list --json` shows its motion device with node and uniq.
    static func withDualSense() throws {
        let controller = try plugDualSense()
        defer { try? controller.unplug() }
        let (status, json) = try list(["--json"])
        try expect(status == 0, "exit status \(status)")
        try expect(
            json.contains("\"kind\":\"evdev\"") && json.contains("\"name\":\"\(DualSenseTests.motionName)\"")
                && json.contains("\"uniq\":\"11:22:33:44:55:66\"") && json.contains("\"node\":\"/dev/input/event"),
            "json: \(json)")
    }
}
