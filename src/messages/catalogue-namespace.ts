/** The target namespace of the whole document catalogue, version 1. */
export const CATALOGUE_NAMESPACE = 'urn:se:depot-gateway:v1';
