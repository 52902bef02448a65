export {
  createProjector,
  DEFAULT_PROJECTOR_GROUP,
  projectorLag,
  totalLag,
  type Projector,
  type ProjectorDeps,
} from './projector.ts';
export { type ProjectionOptions } from './projector.ts';
export { openProjectorPorts } from './ports.ts';
export { projectorMetrics, type ProjectorGauges } from './metrics.ts';
