import Mouse3DCore
import Mouse3DLinux
import Testing

@testable import Mouse3DNetwork

@Suite("First datagrams held for their session's store")
struct HeldDatagramsTests {
    @Test(
        "A store takes its own sender's datagrams, in order, and leaves the others held with their bounds and copies"
    )
    func takeOwn() throws {
        var held = HeldDatagrams(limit: 100, limitPerSender: 10)
        let source = try SocketAddress.resolve("127.0.0.1:9", defaultPort: 0, passive: false)
        let a: [UInt8] = [1, 1, 1, 1, 1, 1, 1, 1]
        let b: [UInt8] = [2, 2, 2, 2, 2, 2, 2, 2]
        for i in UInt8(0)..<10 {
            #expect(held.hold([0xA0, i], claimed: a, from: source, at: UInt64(i)) == nil)
            #expect(held.hold([0xB0, i], claimed: b, from: source, at: UInt64(i)) == nil)
        }
        #expect(held.hold([0xB0, 99], claimed: b, from: source, at: 99) == .notStored, "b's share is full")
        let taken = held.take(claimedBy: [a])
        #expect(taken.map(\.bytes) == (0..<10).map { [0xA0, $0] })
        #expect(held.items.map(\.bytes) == (0..<10).map { [0xB0, $0] }, "b's stay, in order")
        #expect(held.hold([0xB0, 3], claimed: b, from: source, at: 20) == .replayed, "a copy of one still held")
        #expect(held.hold([0xB0, 99], claimed: b, from: source, at: 21) == .notStored, "b's share still counted")
        #expect(held.hold([0xA0, 3], claimed: a, from: source, at: 22) == nil, "a's share and copies are free again")
        #expect(held.take(claimedBy: []).isEmpty)
        #expect(held.take(claimedBy: [b]).count == 10)
        #expect(held.items.map(\.bytes) == [[0xA0, 3]])
    }

    @Test("Two senders released together come in the order they arrived; the last release empties the count")
    func takeTwoInOrder() throws {
        var held = HeldDatagrams(limit: 100, limitPerSender: 10)
        let source = try SocketAddress.resolve("127.0.0.1:9", defaultPort: 0, passive: false)
        let ids: [[UInt8]] = [[1], [2], [3]]
        for i in UInt8(0)..<6 {
            let id = ids[Int(i) % 3]
            #expect(held.hold([id[0], i], claimed: id, from: source, at: UInt64(i)) == nil)
        }
        #expect(held.count == 6)
        let taken = held.take(claimedBy: [ids[2], ids[0]])
        #expect(taken.map(\.bytes) == [[1, 0], [3, 2], [1, 3], [3, 5]], "arrival order across the two")
        #expect(taken.map(\.received) == [0, 2, 3, 5])
        #expect(held.count == 2)
        #expect(held.take(claimedBy: [ids[1]]).map(\.bytes) == [[2, 1], [2, 4]])
        #expect(held.count == 0 && held.items.isEmpty)
        #expect(held.hold([1, 0], claimed: ids[0], from: source, at: 9) == nil, "copies are forgotten once released")
    }
}
