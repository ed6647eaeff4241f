import Mouse3DCore

/// Where a sealed receiver stores its senders' session states (the replay floors that survive a
/// crash). The receiver calls it with what ``SealedStreamOpener`` answers.
public protocol SessionStore: AnyObject {
    /// Whether stores in the background are taken (``storeInBackground(_:)``).
    var storesInBackground: Bool { get }
    /// Stores `record` durably before returning; false if it could not be.
    func storeNow(_ record: PairedPeer) -> Bool
    /// Starts storing `record` in the background (its completion comes back later, as a value);
    /// false if it was not started (after a recent failure).
    func storeInBackground(_ record: PairedPeer) -> Bool
}
