/**
 * A rejection with the chaincode's "<code>,<text>" message. Planners propose only calls the chaincode
 * accepts, so one of these is a planner bug and crashes generation.
 */
export class ChaincodeError extends Error {
  override readonly name = 'ChaincodeError';
}
