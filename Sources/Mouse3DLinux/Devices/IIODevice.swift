import CLinux
import Glibc
import Mouse3DCore
import SystemPackage

/// An Industrial I/O device seen through sysfs (`/sys/bus/iio/devices/iio:deviceN`).
/// Owned by one thread.
public final class IIODevice {
    /// A kind of channel mouse3d reads.
    public enum ChannelKind: String, Sendable, CaseIterable {
        /// `in_accel_{x,y,z}`: specific force; scale gives m/s² per count.
        case accel
        /// `in_anglvel_{x,y,z}`: angular velocity; scale gives rad/s per count.
        case anglvel
    }

    /// The sysfs directory.
    public let sysfsPath: String
    /// `iio:deviceN`.
    public let sysname: String
    /// The `name` attribute, for example `accel_3d`.
    public let name: String

    /// Opens the device at `sysfsPath`.
    public init(sysfsPath: String) throws {
        self.sysfsPath = sysfsPath
        sysname = String(sysfsPath.split(separator: "/").last ?? "")
        name = (try? Self.read(sysfsPath + "/name")) ?? sysname
    }

    /// The character device, `/dev/iio:deviceN`.
    public var node: String { "/dev/\(sysname)" }

    /// The kinds of motion channels the device has.
    public var kinds: [ChannelKind] {
        ChannelKind.allCases.filter {
            FileSystem.exists("\(sysfsPath)/in_\($0.rawValue)_x_raw")
                || FileSystem.exists("\(sysfsPath)/scan_elements/in_\($0.rawValue)_x_en")
        }
    }

    /// An attribute's text, trimmed, or `nil` if it does not exist or cannot be read.
    public func attribute(_ name: String) -> String? { try? Self.read("\(sysfsPath)/\(name)") }

    /// Writes an attribute. `open(2)` + `write(2)`.
    public func setAttribute(_ name: String, _ value: String) throws {
        try Self.write("\(sysfsPath)/\(name)", value)
    }

    /// How raw counts of `kind` become physical values: `matrix · ((raw + offset) · scale)`.
    public struct Scaling: Sendable, Equatable {
        /// Added to raw counts.
        public var offset: Double
        /// Units per count (m/s² or rad/s).
        public var scale: Double
        /// From the chip's axes to the axes wanted (the identity: the chip's own).
        public var matrix: Matrix3 = .diagonal(1)

        /// x, y, z raw counts in physical units, turned by `matrix`.
        public func apply(_ raw: SIMD3<Double>) -> SIMD3<Double> { matrix * ((raw + offset) * scale) }
    }

    /// The scaling of `kind` in the chip's axes, from `in_<kind>_scale` (or `_x_scale`) and `_offset`.
    public func scaling(_ kind: ChannelKind) throws -> Scaling {
        let k = kind.rawValue
        guard let scale = (attribute("in_\(k)_scale") ?? attribute("in_\(k)_x_scale")).flatMap(Double.init) else {
            throw MotionSourceError(message: "\(sysfsPath): no in_\(k)_scale; cannot convert raw values")
        }
        let offset = (attribute("in_\(k)_offset") ?? attribute("in_\(k)_x_offset")).flatMap(Double.init) ?? 0
        return Scaling(offset: offset, scale: scale)
    }

    /// The kernel's mount matrix for `kind` (`in_<kind>_mount_matrix`, else `mount_matrix`), if the
    /// driver gives one.
    public func kernelMountMatrix(_ kind: ChannelKind) -> MountMatrix? {
        (attribute("in_\(kind.rawValue)_mount_matrix") ?? attribute("mount_matrix")).flatMap(MountMatrix.init)
    }

    /// The sampling frequency in Hz, if the device reports one.
    public var samplingFrequencyHertz: Double? {
        (attribute("sampling_frequency") ?? attribute("in_accel_sampling_frequency")
            ?? attribute("in_anglvel_sampling_frequency"))
            .flatMap(Double.init)
    }

    /// Reads `in_<kind>_{x,y,z}_raw` once (a polled read) and applies `scaling`.
    public func pollReading(_ kind: ChannelKind, scaling: Scaling) throws -> SIMD3<Double> {
        var raw = SIMD3<Double>.zero
        for (i, axis) in ["x", "y", "z"].enumerated() {
            let path = "\(sysfsPath)/in_\(kind.rawValue)_\(axis)_raw"
            guard let v = Double(try Self.read(path)) else {
                throw MotionSourceError(message: "\(path): not a number")
            }
            raw[i] = v
        }
        return scaling.apply(raw)
    }

    static func read(_ path: String) throws -> String {
        do {
            return String(decoding: try FileContents.read(path: path), as: UTF8.self).trimmingBlanks
        } catch {
            throw MotionSourceError(message: PermissionAdvice.message(for: error, node: path))
        }
    }

    static func write(_ path: String, _ value: String) throws {
        let fd: FileDescriptor
        do {
            fd = FileDescriptor(rawValue: try SystemCall.retrying("open", path) { open(path, O_WRONLY | O_CLOEXEC) })
        } catch {
            throw MotionSourceError(message: PermissionAdvice.message(for: error, node: path))
        }
        defer { try? fd.close() }
        let bytes = Array(value.utf8)
        do {
            _ = try SystemCall.retrying("write", path) { Glibc.write(fd.rawValue, bytes, bytes.count) }
        } catch {
            throw MotionSourceError(message: "cannot set \(path) to '\(value)': \(error.errno.description)")
        }
    }
}
