import Glibc
import Mouse3DLinux
import Mouse3DNetwork
import Testing

@testable import Mouse3DDoctor

/// Each check of `mouse3d doctor`, passing and failing, against files and sockets made for it.
@Suite("doctor: every check, passing and failing")
struct DoctorTests {
    let directory: String = {
        var template = Array("/tmp/mouse3d-doctor-test-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }()

    func write(_ path: String, _ text: String) throws {
        try SecretFile.write(path: path, bytes: Array(text.utf8))
    }

    @Test(
        "uinput: a missing node is a problem that names the module and blocks when a device output is configured; a note otherwise"
    )
    func uinputMissing() {
        let needed = Doctor.uinput(path: directory + "/uinput", needed: true)
        #expect(needed.status == .problem && needed.blocking)
        #expect(
            needed.detail.contains(directory + "/uinput does not exist")
                && (needed.fix ?? "").contains("modprobe uinput"), "\(needed)")
        let notNeeded = Doctor.uinput(path: directory + "/uinput", needed: false)
        #expect(notNeeded.status == .note && !notNeeded.blocking)
    }

    @Test(
        "uinput denied: before the module is loaded the fix is modprobe (udev cannot apply the rule to a static node), after it the rule"
    )
    func uinputDeniedAdvice() throws {
        let denied = SystemCallError(call: "open", subject: "/dev/uinput", errno: .permissionDenied)
        let early = PermissionAdvice.uinputMessage(for: denied, moduleLoaded: false)
        let (found, fix) = Doctor.split(early)
        #expect(found.contains("permission denied") && found.contains("not loaded"), "\(early)")
        #expect(fix?.hasPrefix("Load it with 'sudo modprobe uinput'") == true && !early.contains("udevadm"), "\(early)")
        let late = PermissionAdvice.uinputMessage(for: denied, moduleLoaded: true)
        #expect(late.contains("udevadm control --reload") && !late.contains("modprobe"), "\(late)")
        // /proc/misc as the kernel writes it: the minor right-aligned, then the name.
        try write(directory + "/misc", " 58 network_throughput\n223 uinput\n")
        #expect(PermissionAdvice.uinputModuleLoaded(misc: directory + "/misc"))
        try write(directory + "/misc-without", "183 hw_random\n 62 ecryptfs\n")
        #expect(!PermissionAdvice.uinputModuleLoaded(misc: directory + "/misc-without"))
    }

    @Test("uinput: a node that opens for writing is ok; one that cannot be opened so is a problem with the reason")
    func uinputAccess() throws {
        try write(directory + "/fake-uinput", "")
        #expect(Doctor.uinput(path: directory + "/fake-uinput", needed: true).status == .ok)
        // A directory cannot be opened for writing, whoever asks (these tests may run as root, who
        // passes every permission bit).
        let folder = Doctor.uinput(path: directory, needed: true)
        #expect(folder.status == .problem && folder.blocking && folder.detail.contains("Is a directory"), "\(folder)")
    }

    @Test("udev rule: missing, an edited copy, and the shipped one")
    func udevRule() throws {
        let rules = directory + "/rules.d"
        try SecretFile.makeDirectory(rules)
        let missing = Doctor.udevRule(directories: [rules])
        #expect(missing.status == .problem && (missing.fix ?? "").contains("udevadm control --reload"))
        try write(rules + "/" + Doctor.ruleName, "# emptied\n")
        #expect(Doctor.udevRule(directories: [rules]).detail.contains("does not grant"))
        let shipped = String(
            decoding: try FileContents.read(path: Self.repository + "/udev/70-mouse3d.rules"), as: UTF8.self)
        try write(rules + "/" + Doctor.ruleName, shipped)
        let seat = Doctor.udevRule(directories: [rules])
        #expect(seat.status == .ok && seat.detail.contains("the seat rule"), "\(seat)")
        let group = String(
            decoding: try FileContents.read(path: Self.repository + "/udev/70-mouse3d-group.rules.example"),
            as: UTF8.self)
        try write(rules + "/" + Doctor.ruleName, group)
        let grouped = Doctor.udevRule(directories: [rules])
        #expect(
            grouped.status == .ok && grouped.detail.contains("group 'mouse3d'"),
            "doctor says which rule applies: \(grouped)")
    }

    @Test("configuration: a broken file is a blocking problem with its file and line; a good one is ok")
    func configuration() throws {
        let file = directory + "/config.toml"
        try write(file, "[pointer]\nsensitivity = \"fast\"\n")
        let broken = Doctor.configurationCheck(files: [file])
        #expect(
            broken.check.status == .problem && broken.check.blocking
                && broken.check.detail.contains("\(file):2: pointer.sensitivity"), "\(broken.check)")
        try write(file, "[receive]\noutput = \"spacemouse\"\n")
        let good = Doctor.configurationCheck(files: [file])
        #expect(good.check.status == .ok && good.value?[.receiveOutput] == "spacemouse")
    }

    @Test("systemd units: none is a note with the install command; an installed one is ok")
    func units() throws {
        let dir = directory + "/systemd-user"
        try SecretFile.makeDirectory(dir)
        #expect(Doctor.units(directories: [dir]).status == .note)
        try write(dir + "/mouse3d-receive.service", "[Service]\n")
        let found = Doctor.units(directories: [dir])
        #expect(found.status == .ok && found.detail.contains("mouse3d-receive.service"))
    }

    @Test("stream port: a free port takes a loopback datagram; a port in use is said, without blocking")
    func streamPort() throws {
        let holder = try UDPSocket(
            family: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false).family)
        try holder.bind(to: try SocketAddress.resolve("0.0.0.0:0", defaultPort: 0, passive: true))
        let taken = try holder.localAddress().port
        let busy = Doctor.streamPort(taken)
        #expect(busy.status == .note && busy.detail.contains("in use"), "\(busy)")
        // A port that was free a moment ago (bound, then released).
        var free: UInt16 = 0
        do {
            let probe = try UDPSocket(family: holder.localAddress().family)
            try probe.bind(to: try SocketAddress.resolve("0.0.0.0:0", defaultPort: 0, passive: true))
            free = try probe.localAddress().port
        }
        let open = Doctor.streamPort(free)
        #expect(open.status == .ok && open.detail.contains("loopback datagram arrives"), "\(open)")
    }

    @Test("spacenavd: running, or a problem only when the spacemouse output is configured")
    func spacenavd() throws {
        let proc = directory + "/proc"
        try SecretFile.makeDirectory(proc + "/4242")
        try write(proc + "/4242/comm", "bash\n")
        #expect(Doctor.spacenavd(needed: true, processes: proc).status == .problem)
        #expect(Doctor.spacenavd(needed: true, processes: proc).blocking)
        #expect(Doctor.spacenavd(needed: false, processes: proc).status == .note)
        try SecretFile.makeDirectory(proc + "/4343")
        try write(proc + "/4343/comm", "spacenavd\n")
        #expect(Doctor.spacenavd(needed: true, processes: proc).status == .ok)
    }

    @Test("Avahi: without the daemon, discovery is a note with the package to install (with it: ok)")
    func avahi() {
        let check = Doctor.avahi()
        if check.status == .ok {
            print("avahi: the daemon runs here; the missing-daemon message is checked where it does not")
            #expect(check.detail.contains("answers"))
        } else {
            #expect(check.status == .note && !check.blocking && (check.fix ?? "").contains("avahi-daemon"), "\(check)")
        }
    }

    @Test("Paired receivers: none is a note; one that does not answer its link probes is a problem")
    func peers() throws {
        let base = directory + "/mouse3d"
        #expect(Doctor.peers(directory: base, port: 24930).first?.status == .note)
        let me = try PeerIdentity.loadOrCreate(in: base).identity
        let other = PeerIdentity.generate(name: "desk")
        // A receiver that will not answer: a bound socket that never reads.
        let silent = try UDPSocket(
            family: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false).family)
        try silent.bind(to: try SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        let record = PairedPeer(
            role: .receiver, name: "desk", publicKey: other.publicKey, secret: [UInt8](repeating: 7, count: 32),
            address: "127.0.0.1:\(try silent.localAddress().port)", epoch: 0, pairedAt: "test")
        try PeerStore(base: base, role: .receiver).save(record)
        let checks = Doctor.peers(directory: base, port: 24930)
        #expect(
            checks.count == 1 && checks[0].status == .problem && checks[0].detail.contains("did not answer"),
            "\(checks)")
        _ = me
    }

    @Test("Output: one line per check with its mark and fix; JSON that parses with every field")
    func output() {
        let checks = [
            DoctorCheck("uinput", .problem, "/dev/uinput does not exist", fix: "sudo modprobe uinput", blocking: true),
            DoctorCheck("avahi", .note, "not \"running\"\n")
        ]
        #expect(
            Doctor.text(checks)
                == "✗ uinput: /dev/uinput does not exist\n    fix: sudo modprobe uinput\n– avahi: not \"running\"\n")
        #expect(
            Doctor.json(checks)
                == "[{\"name\":\"uinput\",\"status\":\"problem\",\"detail\":\"/dev/uinput does not exist\",\"fix\":\"sudo modprobe uinput\",\"blocking\":true},\n {\"name\":\"avahi\",\"status\":\"note\",\"detail\":\"not \\\"running\\\"\\n\",\"fix\":null,\"blocking\":false}]"
        )
    }

    static var repository: String {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }
}
