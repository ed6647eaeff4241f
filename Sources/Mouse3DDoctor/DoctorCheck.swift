import Mouse3DConfig
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import SystemPackage

/// `mouse3d doctor`: everything the main job needs, checked one by one, each with what was found and
/// the exact fix. Nothing here changes the machine (no identity is created, no file written).
public struct DoctorCheck: Sendable, Equatable {
    /// ok (✓), a problem (✗), or a note (–: not needed for what is configured, or not checkable).
    public enum Status: String, Sendable { case ok, problem, note }
    /// A short name (`uinput`, `udev rule`, ...).
    public var name: String
    public var status: Status
    /// What was found.
    public var detail: String
    /// The exact fix, for a problem.
    public var fix: String?
    /// Whether the problem keeps the main job from working (doctor then exits 1).
    public var blocking: Bool

    public init(_ name: String, _ status: Status, _ detail: String, fix: String? = nil, blocking: Bool = false) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
        self.blocking = status == .problem && blocking
    }
}
