export {
  ClientSnapshotDocuments,
  DEFAULT_SNAPSHOT_MAX_BYTES,
  type ClientSnapshotDocument,
  type ClientSnapshotDocumentsOptions,
} from './client-snapshot-documents';
