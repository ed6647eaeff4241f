import Mouse3DConfig
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Mouse3DPhone
import SystemPackage

public enum Doctor {
    /// The rule file's name, as shipped (udev/70-mouse3d.rules).
    public static let ruleName = "70-mouse3d.rules"
    /// The systemd user units shipped (Config/).
    public static let unitNames = ["mouse3d-receive.service", "mouse3d-send.service", "mouse3d-run.service"]

    /// Every check, in the order a user would fix them.
    public static func run(_ environment: DoctorEnvironment, version: String, build: String) -> [DoctorCheck] {
        var checks = [DoctorCheck("build", .ok, "mouse3d \(version), \(build)")]
        let configuration = configurationCheck(files: environment.configurationFiles)
        checks.append(configuration.check)
        let output = configuration.value?[.receiveOutput] ?? "print"
        checks.append(uinput(path: environment.uinputPath, needed: output != "print"))
        checks.append(udevRule(directories: environment.ruleDirectories))
        if environment.checksSources { checks += sources() }
        checks.append(units(directories: environment.unitDirectories))
        let port = UInt16((configuration.value ?? .builtIn)[.networkPort])
        checks.append(streamPort(port))
        if environment.checksNetwork {
            let avahi = avahi()
            checks.append(avahi)
            checks += peers(directory: environment.configurationDirectory, port: port)
            checks += phonePage(port: PhoneSource.defaultPort, mDNS: avahi.status == .ok)
        }
        checks.append(spacenavd(needed: output == "spacemouse", processes: environment.processDirectory))
        if environment.checksSources { checks += gamepads(needed: output == "gamepad") }
        return checks
    }

    /// The configuration files parse and every value is valid (what `config check` says).
    static func configurationCheck(files: [String]) -> (check: DoctorCheck, value: Configuration?) {
        do {
            let layers = try files.compactMap { path throws(ConfigurationProblem) in
                try ConfigurationFile.load(path: path)
            }
            let environment = try ConfigurationLayer.environment(FileSystem.environmentVariables)
            let read = files.filter { FileSystem.fileExists($0) }
            return (
                DoctorCheck(
                    "configuration", .ok,
                    read.isEmpty ? "no file; the built-in defaults" : "\(read.joined(separator: ", ")) valid"),
                Configuration(files: layers, overrides: [environment])
            )
        } catch {
            return (
                DoctorCheck(
                    "configuration", .problem, "\(error)",
                    fix: "correct that line (mouse3d config defaults shows every key)", blocking: true), nil
            )
        }
    }

    /// /dev/uinput: present, a character device, writable by this user; why not if not. Denied while
    /// the uinput module is not loaded (not in `miscDevices`, the kernel's /proc/misc) is the state
    /// right after the rule is installed: the node is a static one, with no device for udev to apply
    /// the rule to, so the fix is loading the module, not installing the rule again.
    static func uinput(path: String, needed: Bool, miscDevices: String = "/proc/misc") -> DoctorCheck {
        do {
            try UinputDevice.checkAccess(path: path)
            return DoctorCheck("uinput", .ok, "\(path) is writable: virtual devices can be created")
        } catch {
            let advice = PermissionAdvice.uinputMessage(
                for: error, moduleLoaded: PermissionAdvice.uinputModuleLoaded(misc: miscDevices)
            ).replacing("/dev/uinput", with: path)
            let (found, fix) = split(advice)
            return DoctorCheck(
                "uinput", needed ? .problem : .note,
                found + (needed ? "" : " (needed for --uinput only; receive.output is print)"),
                fix: fix, blocking: needed)
        }
    }

    /// The udev rule that grants the devices: the seat rule (uaccess) or the group rule; says which applies.
    static func udevRule(directories: [String]) -> DoctorCheck {
        for directory in directories {
            let path = directory + "/" + ruleName
            guard FileSystem.fileExists(path) else { continue }
            let text = String(decoding: (try? FileContents.read(path: path)) ?? [], as: UTF8.self)
            // Which applies is read from the uinput line: the seat's user (uaccess), or a group.
            let uinput =
                text.split(separator: "\n").first { $0.contains("KERNEL==\"uinput\"") && !$0.hasPrefix("#") } ?? ""
            if uinput.contains("TAG+=\"uaccess\"") {
                return DoctorCheck(
                    "udev rule", .ok,
                    "\(path): the seat rule: /dev/uinput and motion sensors for the user at the active seat "
                        + "(any program of that user can type into the session; \(groupRuleFile) restricts it to a group instead)"
                )
            }
            if let group = uinput.firstRange(of: "GROUP=\"").map({ uinput[$0.upperBound...].prefix { $0 != "\"" } }),
                !group.isEmpty
            {
                return DoctorCheck(
                    "udev rule", .ok,
                    "\(path): the group rule: /dev/uinput and motion sensors for the members of group '\(group)' "
                        + "(any program of a member can type into the active session)")
            }
            return DoctorCheck(
                "udev rule", .problem, "\(path) does not grant /dev/uinput (an old or edited copy)",
                fix:
                    "sudo install -m 644 \(PermissionAdvice.ruleFile) \(directory)/ && sudo udevadm control --reload && sudo udevadm trigger"
            )
        }
        return DoctorCheck(
            "udev rule", .problem, "\(ruleName) is not installed in \(directories.joined(separator: ", "))",
            fix:
                "sudo install -m 644 \(PermissionAdvice.ruleFile) /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"
        )
    }

    /// The alternative rule that grants the devices to group mouse3d instead of the seat.
    static var groupRuleFile: String {
        let shipped = PermissionAdvice.ruleFile
        return String(shipped.dropLast(".rules".count)) + "-group.rules.example"
    }

    /// Each motion source, and whether this user may read it.
    static func sources() -> [DoctorCheck] {
        guard let udev = try? Udev() else {
            return [DoctorCheck("motion sources", .note, "udev is not available: cannot list them")]
        }
        let found =
            ((try? MotionSourceEnumerator.evdevDevices(udev: udev)) ?? [])
            + ((try? MotionSourceEnumerator.iioDevices(udev: udev)) ?? [])
        guard !found.isEmpty else {
            return [
                DoctorCheck(
                    "motion sources", .note, "none on this machine (fine for a receiver)",
                    fix: "plug in a controller with motion sensors, or pair this machine as a receiver")
            ]
        }
        return found.map { info in
            let node = info.node ?? info.sysfsPath
            let readable = FileSystem.isReadable(node)
            return DoctorCheck(
                "motion source", readable ? .ok : .problem,
                "'\(info.name)' at \(node)" + (readable ? " is readable" : ": permission denied")
                    + "; axes: \(info.axesOrigin)",
                fix: readable ? nil : "install the udev rule (above): it grants the sensors to the user at the seat")
        }
    }

    /// The systemd user units.
    static func units(directories: [String]) -> DoctorCheck {
        var found: [String] = []
        for name in unitNames {
            if let directory = directories.first(where: { FileSystem.fileExists($0 + "/" + name) }) {
                found.append(directory + "/" + name)
            }
        }
        if found.isEmpty {
            return DoctorCheck(
                "systemd units", .note, "none installed (mouse3d runs without them)",
                fix: "scripts/install.sh --user installs them; then systemctl --user enable --now mouse3d-receive")
        }
        return DoctorCheck("systemd units", .ok, found.joined(separator: ", "))
    }

    /// The stream port: free to listen on every address (as `receive` does), and a datagram sent to
    /// it on loopback arrives. The probe listens on loopback only, and takes as the answer only its
    /// own random 16 bytes from its own sending socket (no other program or host can fake it).
    static func streamPort(_ port: UInt16) -> DoctorCheck {
        do {
            do {
                let any = try SocketAddress.resolve("0.0.0.0:\(port)", defaultPort: port, passive: true)
                try UDPSocket(family: any.family).bind(to: any)  // free? (closed at once)
            }
            let loopback = try SocketAddress.resolve("127.0.0.1:\(port)", defaultPort: port, passive: false)
            let socket = try UDPSocket(family: loopback.family, blocking: true)
            try socket.bind(to: loopback)
            try socket.setReceiveTimeout(nanoseconds: 100_000_000)
            let probe = try UDPSocket(family: loopback.family)
            try probe.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
            let from = try probe.localAddress()
            var generator = SystemRandomNumberGenerator()
            let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try nonce.withUnsafeBytes { try probe.send($0, to: loopback) }
            var buffer = [UInt8](repeating: 0, count: 64)
            let deadline = MonotonicClock.nanoseconds() + 500_000_000
            var arrived = false
            while !arrived && MonotonicClock.nanoseconds() < deadline {
                guard let got = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) else { continue }
                arrived =
                    got.from == from && got.length == nonce.count && buffer.prefix(nonce.count).elementsEqual(nonce)
            }
            guard arrived else {
                return DoctorCheck(
                    "stream port", .problem,
                    "UDP \(port) is free, but a datagram sent to it on loopback did not arrive",
                    fix:
                        "a firewall drops it: allow UDP \(port) (e.g. sudo nft add rule inet filter input udp dport \(port) accept)",
                    blocking: true)
            }
            return DoctorCheck(
                "stream port", .ok,
                "UDP \(port) is free and a loopback datagram arrives (other machines also need it open in the firewall)"
            )
        } catch let error as SystemCallError where error.errno == .addressInUse {
            return DoctorCheck(
                "stream port", .note, "UDP \(port) is in use (a receive already running?)",
                fix: "stop the other process, or choose another network.port")
        } catch {
            return DoctorCheck(
                "stream port", .problem, "UDP \(port): \(error)", fix: "choose another network.port", blocking: true)
        }
    }

    /// The phone page (`--source phone`): what it offers and how to reach it: its TCP port free on
    /// every address, the URLs a phone can open (the LAN addresses', which need nothing, and
    /// `HOST.local`'s, which needs mDNS on the phone too), and the firewall and certificate steps.
    static func phonePage(port: UInt16, mDNS: Bool) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        do {
            _ = try TCPListener.listening(host: "0.0.0.0", port: port)  // closed at once
            checks.append(
                DoctorCheck(
                    "phone page", .ok,
                    "TCP \(port) is free for `run --source phone`: a page with left and right click, recenter and "
                        + "hold to move (the clutch: the pointer moves only while it is held); other machines need "
                        + "TCP \(port) open in the firewall (e.g. sudo nft add rule inet filter input tcp dport \(port) accept)"
                ))
        } catch {
            let inUse = "\(error)".contains("in use")
            checks.append(
                DoctorCheck(
                    "phone page", inUse ? .note : .problem,
                    inUse ? "TCP \(port) is in use (a run --source phone already running?)" : "TCP \(port): \(error)",
                    fix: "use another port: run --source phone:0.0.0.0:PORT"))
        }
        let addresses = LocalAddresses.current()
        let name = FileSystem.hostName.lowercased() + ".local"
        let resolves = mDNS && (try? SocketAddress.resolve("\(name):\(port)", defaultPort: port, passive: false)) != nil
        if let first = addresses.first {
            checks.append(
                DoctorCheck(
                    "phone URL", .ok,
                    "a phone on the same network opens https://\(first.urlHost):\(port)/ (the QR code's; "
                        + (resolves
                            ? "\(name) resolves here too, and works on phones that resolve .local names)"
                            : "\(name) does not resolve here, so that address is the way)")
                        + "; the browser warns once about mouse3d's own certificate: "
                        + PhoneSetup.certificateSteps.joined(separator: "; ")))
        } else {
            checks.append(
                DoctorCheck(
                    "phone URL", .note,
                    "this machine has no address on a network (only loopback): a phone cannot reach the page",
                    fix: "connect to the same Wi-Fi or network as the phone"))
        }
        return checks
    }

    /// The Avahi daemon, for discovery and announcing.
    static func avahi() -> DoctorCheck {
        do {
            guard try ServiceDiscovery.daemonIsRunning() else {
                return DoctorCheck(
                    "avahi", .note,
                    "the Avahi daemon is not running: discovery is off (send --to HOST and pair HOST CODE still work)",
                    fix: "sudo apt install avahi-daemon && sudo systemctl enable --now avahi-daemon")
            }
            return DoctorCheck(
                "avahi", .ok, "the Avahi daemon answers: receivers announce themselves and senders find them")
        } catch {
            return DoctorCheck(
                "avahi", .note, "\(error): discovery is off (send --to HOST and pair HOST CODE still work)",
                fix: "sudo apt install avahi-daemon && sudo systemctl enable --now avahi-daemon")
        }
    }

    /// Each receiver this machine is paired with, and whether it answers an authenticated link probe.
    static func peers(directory: String, port: UInt16) -> [DoctorCheck] {
        let (paired, problems) = PeerStore(base: directory, role: .receiver).load()
        var checks = problems.map {
            DoctorCheck("pairing", .problem, "\($0)", fix: "pair again: mouse3d pair HOST CODE")
        }
        guard !paired.isEmpty else {
            return checks + [
                DoctorCheck(
                    "paired receivers", .note, "none (fine on a receiver)",
                    fix: "on the receiver: mouse3d pair; here: mouse3d pair HOST CODE")
            ]
        }
        guard FileSystem.fileExists(PeerIdentity.path(in: directory)),
            let identity = try? PeerIdentity.loadOrCreate(in: directory).identity
        else {
            return checks + [
                DoctorCheck(
                    "paired receivers", .problem, "pairings without this machine's identity in \(directory)",
                    fix: "pair again")
            ]
        }
        let prober = LinkProber(senderID: identity.id)
        for peer in paired {
            if let address = peer.address.flatMap({ try? SocketAddress.resolve($0, defaultPort: port, passive: false) })
            {
                try? prober.track(peer.fingerprint, address: address, secret: peer.secret, receiverID: peer.id)
            }
        }
        try? prober.measure(probes: 3, spacingNanoseconds: 50_000_000, graceNanoseconds: 500_000_000)
        for peer in paired {
            if peer.address == nil {
                checks.append(
                    DoctorCheck(
                        "receiver '\(peer.name)'", .note, "paired, no address known yet (send --discover finds it)"))
            } else if let quality = prober.quality(of: peer.fingerprint), !quality.roundTrips.isEmpty {
                checks.append(
                    DoctorCheck("receiver '\(peer.name)'", .ok, "\(peer.address!) answers: \(quality.summary)"))
            } else {
                checks.append(
                    DoctorCheck(
                        "receiver '\(peer.name)'", .problem, "\(peer.address!) did not answer 3 link probes",
                        fix: "start mouse3d receive there, or check its firewall (UDP \(port))"))
            }
        }
        return checks
    }

    /// For the virtual gamepad (`--uinput gamepad`): each controller's gamepad node can be taken for
    /// mouse3d alone (EVIOCGRAB, released again at once), so a game sees one controller. A program
    /// that holds it already (Steam Input, InputPlumber, another mouse3d) makes that fail with EBUSY.
    static func gamepads(needed: Bool) -> [DoctorCheck] {
        guard let udev = try? Udev(), let found = try? MotionSourceEnumerator.evdevDevices(udev: udev) else {
            return []
        }
        let keys = Set(Xbox360Layout.keys.map(Int32.init))
        return found.compactMap { info -> DoctorCheck? in
            guard let node = info.node, let pad = try? GamepadButtons.sibling(of: node, having: keys) else {
                return nil
            }
            do {
                try pad.device.grab()
                return DoctorCheck(
                    "gamepad", .ok,
                    "'\(pad.device.name)' at \(pad.device.path) can be hidden from other programs while `run --uinput gamepad` stands in for it (its hidraw node stays visible: an SDL game may see the real pad there too)"
                )
            } catch {
                return DoctorCheck(
                    "gamepad", needed ? .problem : .note,
                    "'\(pad.device.name)' at \(pad.device.path) cannot be hidden: \(error)"
                        + ((error as? SystemCallError)?.errno == .resourceBusy ? " (another program holds it)" : ""),
                    fix:
                        "close the program that holds the pad (Steam Input, InputPlumber, a game reading it) before `mouse3d run --uinput gamepad`",
                    blocking: needed)
            }
        }
    }

    /// spacenavd, when the spacemouse output is configured.
    static func spacenavd(needed: Bool, processes: String) -> DoctorCheck {
        let running = ((try? DirectoryListing.names(in: processes)) ?? []).contains { entry in
            entry.allSatisfy(\.isNumber)
                && String(
                    decoding: (try? FileContents.read(path: processes + "/" + entry + "/comm")) ?? [], as: UTF8.self
                ).hasPrefix("spacenavd")
        }
        if running {
            return DoctorCheck("spacenavd", .ok, "running: Blender and FreeCAD get the 6-DoF device through it")
        }
        return DoctorCheck(
            "spacenavd", needed ? .problem : .note,
            "not running" + (needed ? "" : " (needed for the spacemouse output only)"),
            fix: "sudo apt install spacenavd && sudo systemctl enable --now spacenavd", blocking: needed)
    }

    /// "X does not exist: ... Load it with 'cmd'" → (what was found, the fix).
    static func split(_ advice: String) -> (String, String?) {
        for marker in [". Load it with ", ". Install ", ". Use a kernel "] {
            if let r = advice.firstRange(of: marker) {
                return (String(advice[..<r.lowerBound]), String(advice[r.lowerBound...].dropFirst(2)))
            }
        }
        return (advice, nil)
    }

    /// One line per check, with ✓, ✗ or –, and the fix on the next line.
    public static func text(_ checks: [DoctorCheck]) -> String {
        checks.map { c in
            let mark =
                switch c.status {
                case .ok: "✓"
                case .problem: "✗"
                case .note: "–"
                }
            return "\(mark) \(c.name): \(c.detail)" + (c.fix.map { "\n    fix: \($0)" } ?? "")
        }.joined(separator: "\n")
    }

    /// The checks as a JSON array of {name, status, detail, fix, blocking}.
    public static func json(_ checks: [DoctorCheck]) -> String {
        JSONText.objectArray(
            checks.map { c in
                "{\"name\":\(JSONText.string(c.name)),\"status\":\"\(c.status.rawValue)\",\"detail\":\(JSONText.string(c.detail)),"
                    + "\"fix\":\(c.fix.map(JSONText.string) ?? "null"),\"blocking\":\(c.blocking)}"
            })
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}
