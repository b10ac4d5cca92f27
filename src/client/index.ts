// `plant-store/client`: the client package (packages/client, `plant-store-client`) re-exported, so
// that code written against `plant-store/client` keeps working. A service that needs only the
// client installs `plant-store-client` alone.
export * from 'plant-store-client';
