export {
  type DiskSource,
  isReservationUsableBy,
  MAX_SCALAR,
  type Range,
  type ResourceEntry,
  type ResourceKind,
  ResourceParseError,
  type ResourceType,
  toMilli,
} from './piece';
export { Resources } from './resources';
export { parseResources, parseResourcesInput, resourcesFromJSON, resourcesFromMesosJSON } from './parse';
