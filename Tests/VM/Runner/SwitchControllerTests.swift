import Glibc
import Mouse3DCore
import Mouse3DLinux
import VMDeviceEmulators

enum SwitchControllerTests {
    /// Plugs an emulated Nintendo controller and waits (up to 20 s: the driver's handshake is a dozen
    /// round trips) until hid-nintendo has made its IMU device; returns it with the device's node.
    static func plug(_ model: SwitchControllerEmulator.Model, macLastByte: UInt8 = 0x01) throws -> (
        SwitchControllerEmulator, String
    ) {
        let controller = try SwitchControllerEmulator(model, macLastByte: macLastByte)
        let udev = try Udev()
        do {
            let node = try waitFor("hid-nintendo's '\(model.motionName)'", seconds: 20) {
                try MotionSourceEnumerator.evdevDevices(udev: udev).first {
                    $0.name == model.motionName && ($0.uniqueID ?? "").uppercased().hasSuffix(format2(macLastByte))
                }?.node
            }
            return (controller, node)
        } catch {
            say("VMTEST-INFO kernel log:\n\(kernelLog(matching: "nintendo"))")
            try? controller.unplug()
            throw error
        }
    }

    static func format2(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    /// The kernel's messages that contain `word`, for a failure's report.
    static func kernelLog(matching word: String) -> String {
        let path = "/tmp/dmesg-\(MonotonicClock.nanoseconds()).txt"
        guard let child = try? ChildProcess(executable: "/bin/dmesg", arguments: [], standardOutputPath: path),
            (try? child.wait()) != nil, let text = try? FileContents.read(path: path)
        else { return "(dmesg unavailable)" }
        return String(decoding: text, as: UTF8.self).split(separator: "\n").filter { $0.lowercased().contains(word) }
            .suffix(30).joined(separator: "\n")
    }

    /// The Pro Controller and both Joy-Cons, each bound by hid-nintendo after its handshake (device
    /// info, SPI flash calibration reads, report mode 0x30, IMU on): `mouse3d list` names each IMU
    /// device with its MAC, and a Joy-Con pair shows as two sources.
    static func listed() throws {
        var plugged: [SwitchControllerEmulator] = []
        defer { for c in plugged { try? c.unplug() } }
        for (i, model) in SwitchControllerEmulator.Model.allCases.enumerated() {
            let (controller, _) = try plug(model, macLastByte: UInt8(i + 1))
            plugged.append(controller)
        }
        let (status, text) = try ListTests.list()
        try expect(status == 0, "exit status \(status)")
        say("VMTEST-INFO mouse3d list with a Pro Controller and two Joy-Cons:\n\(text)")
        for (i, model) in SwitchControllerEmulator.Model.allCases.enumerated() {
            let mac = "98:B6:E9:5A:3C:\(format2(UInt8(i + 1)))"
            // Each source is a line naming it, then indented lines (the second has its uniq).
            let lines = text.split(separator: "\n")
            try expect(
                lines.indices.contains {
                    lines[$0].hasSuffix("'\(model.motionName)'") && $0 + 1 < lines.count
                        && lines[$0 + 1].contains("uniq \(mac)")
                },
                "list does not name \(model.motionName) (\(mac)): \(text)")
        }
    }

    /// `mouse3d record` from a Switch Pro Controller: three samples per 15 ms report, so about 200 Hz;
    /// every sample the emulator sent is there once, in order (each carries its own index in its
    /// rate), and the samples are 5 ms apart by the driver's clock.
    static func proControllerRecord() throws {
        let (controller, node) = try plug(.proController)
        defer { try? controller.unplug() }
        // Sample n turns at (n mod 50) °/s about mouse3d's z: its index, readable from the log.
        var steps: [MotionScript.Step] = []
        for n in 0..<50 {
            steps.append(
                .init(
                    seconds: 0.005, degreesPerSecond: SIMD3(0, 0, Double(n)),
                    metersPerSecondSquared: SIMD3(0, 0, 9.80665)))
        }
        controller.startStreaming(MotionScript(steps))
        let log = try LiveSourceTests.record(["--source", "evdev:\(node)"], seconds: 3)
        controller.stopStreaming()
        let sent = controller.samplesSent
        let indices = log.samples.map { s -> Int in
            Int((s.angularVelocityRadiansPerSecond.z * 180 / .pi).rounded())
        }
        let times = log.samples.map(\.timestampNanoseconds)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        var broken: [String] = []
        for i in 1..<indices.count where indices[i] != (indices[i - 1] + 1) % 50 {
            broken.append("\(indices[i - 1])→\(indices[i]) at sample \(i)")
        }
        let seconds = Double(times.last! - times.first!) / 1e9
        let rate = Double(times.count - 1) / seconds
        say(
            "VMTEST-INFO record from a Switch Pro Controller: \(log.samples.count) samples (emulator sent \(sent) in all), \(Int(rate)) Hz by the driver's clock, spacing \(Set(gaps)) ns; out of sequence: \(broken.prefix(5))"
        )
        try expect(log.samples.count > 450, "only \(log.samples.count) samples in 3 s at 200 Hz")
        try expect(broken.isEmpty, "samples lost or repeated: \(broken.prefix(10))")
        try expect(Set(gaps) == [5_000_000], "samples not 5 ms apart: \(Set(gaps))")
        try expect(abs(rate - 200) < 1, "\(rate) Hz, the driver stamps 200")
        for s in log.samples {
            try expect(
                abs(s.specificForceMetersPerSecondSquared.z - 9.80665) < 0.01
                    && abs(s.specificForceMetersPerSecondSquared.x) < 0.01
                    && abs(s.specificForceMetersPerSecondSquared.y) < 0.01,
                "force \(s.specificForceMetersPerSecondSquared) for 1 g up")
        }
    }
}
