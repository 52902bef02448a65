export {
  budgetWatchOf,
  observeBudgets,
  StoreTimeoutError,
  type BudgetEvent,
  type BudgetWatch,
  type Stall,
} from './budget.ts';
export { timeCounters, timeReadStore, withBudgets, type Budgets } from './timed-ports.ts';
