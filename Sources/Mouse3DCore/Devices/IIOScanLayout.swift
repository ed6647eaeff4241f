/// Where each enabled channel sits in one record of an IIO buffer.
///
/// The kernel lays enabled channels out in increasing scan index, each aligned to its own storage
/// size, and pads the record to a multiple of its largest element (iio_compute_scan_bytes).
public struct IIOScanLayout: Sendable, Equatable {
    /// One enabled channel.
    public struct Channel: Sendable, Equatable {
        /// The channel's name without prefix and suffix, for example `accel_x` or `timestamp`.
        public var name: String
        /// Its scan index.
        public var index: Int
        /// Its storage format.
        public var type: IIOScanType
        /// Its byte offset in a record.
        public var offset: Int
    }

    /// The channels in record order.
    public private(set) var channels: [Channel]
    /// The size of one record, in bytes.
    public private(set) var recordBytes: Int

    /// Lays out `channels` (name, scan index, type), which may come in any order.
    public init(_ enabled: [(name: String, index: Int, type: IIOScanType)]) {
        var offset = 0
        var largest = 1
        channels = []
        for c in enabled.sorted(by: { $0.index < $1.index }) {
            let alignment = c.type.storageBits / 8
            offset = (offset + alignment - 1) / alignment * alignment
            channels.append(Channel(name: c.name, index: c.index, type: c.type, offset: offset))
            offset += c.type.storageBytes
            largest = max(largest, alignment)
        }
        recordBytes = (offset + largest - 1) / largest * largest
    }

    /// The channel called `name`, if enabled.
    public func channel(_ name: String) -> Channel? { channels.first { $0.name == name } }
}
