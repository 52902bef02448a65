/**
 * A rejection by the chaincode, with its "<code>,<text>" message. The planners only propose calls
 * the chaincode accepts, so the devnet treats one of these as a planner bug and lets it crash
 * generation instead of skipping the call.
 */
export class ChaincodeError extends Error {
  override readonly name = 'ChaincodeError';
}
