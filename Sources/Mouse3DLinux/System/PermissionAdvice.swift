import Glibc

/// What to tell a user who may not open a device node.
public enum PermissionAdvice {
    /// The udev rule file that grants access, by a path the user can copy from wherever they are:
    /// the copy installed beside the binary (PREFIX/share/mouse3d, by scripts/install.sh), else the
    /// source tree's (a binary run from .build), else the name in mouse3d's source.
    public static let ruleFile: String = {
        let name = "70-mouse3d.rules"
        guard let executable = try? FileSystem.executablePath(), let real = FileSystem.realPath(executable) else {
            return "udev/\(name)"
        }
        var directory = String(real[..<(real.lastIndex(of: "/") ?? real.startIndex)])
        if let prefix = directory.lastIndex(of: "/") {
            let installed = "\(directory[..<prefix])/share/mouse3d/\(name)"
            if FileSystem.exists(installed) { return installed }
        }
        for _ in 0..<4 {  // .build/x86_64-unknown-linux-gnu/debug/mouse3d → the checkout's udev/
            guard let up = directory.lastIndex(of: "/"), up > directory.startIndex else { break }
            directory = String(directory[..<up])
            if FileSystem.exists("\(directory)/udev/\(name)") && FileSystem.exists("\(directory)/Package.swift") {
                return "\(directory)/udev/\(name)"
            }
        }
        return "udev/\(name)"
    }()

    /// A sentence for `error` on `node`: for EACCES/EPERM, which rule fixes it and how to install it.
    public static func message(for error: SystemCallError, node: String) -> String {
        switch error.errno.rawValue {
        case EACCES, EPERM:
            return "\(node): permission denied. Install the udev rule that grants it to the user at the seat: "
                + "sudo install -m 644 \(ruleFile) /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger "
                + "(or, where the group rule is installed instead, join its group and log in again)"
        case ENOENT, ENXIO, ENODEV:
            return "\(node): the device is gone (unplugged?) or never existed; 'mouse3d list' shows what is there"
        default:
            return "\(error)"
        }
    }

    /// Whether the uinput module's device is registered (the kernel's list of misc devices, `misc`).
    public static func uinputModuleLoaded(misc: String = "/proc/misc") -> Bool {
        String(decoding: (try? FileContents.read(path: misc)) ?? [], as: UTF8.self)
            .split(separator: "\n").contains { $0.hasSuffix(" uinput") }
    }

    /// A sentence for a failure to create a virtual device through `/dev/uinput`. Denied while the
    /// module is not loaded (`moduleLoaded`, read from /proc/misc unless given) is the state right
    /// after the rule is installed: /dev/uinput is then a static node with no device for udev to
    /// apply the rule to, so loading the module is the fix, not the rule.
    public static func uinputMessage(for error: SystemCallError, moduleLoaded: Bool? = nil) -> String {
        switch error.errno.rawValue {
        case ENOENT:
            return "/dev/uinput does not exist: the uinput module is not loaded. Load it with 'sudo modprobe uinput' "
                + "(and 'echo uinput | sudo tee /etc/modules-load.d/uinput.conf' loads it at every boot)"
        case ENODEV, ENXIO:
            return
                "/dev/uinput is there but no driver answers: this kernel lacks the uinput module. Use a kernel built with "
                + "CONFIG_INPUT_UINPUT (Debian's and most distributions' have it)"
        case EACCES, EPERM:
            if !(moduleLoaded ?? uinputModuleLoaded()) {
                return "/dev/uinput: permission denied, and the uinput module is not loaded: udev grants the node only "
                    + "once the module's device appears. Load it with 'sudo modprobe uinput' (udev then applies the rule; "
                    + "mouse3d's package and install.sh load it at every boot)"
            }
            return message(for: error, node: "/dev/uinput")
        default:
            return "cannot create a virtual input device: \(error)"
        }
    }
}
