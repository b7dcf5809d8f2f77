-- Auto-recharge answers charges only: a refund's take-back, a dispute's freeze, an operator's debit or
-- an expiry that leaves the balance low starts no top-up (a buyer whose payment was just refunded is
-- not charged again by it). The claim's trigger fires on charges' ledger rows (type usage) alone.
DROP TRIGGER claim_auto_recharge ON credit_transactions;
CREATE TRIGGER claim_auto_recharge AFTER INSERT ON credit_transactions
    FOR EACH ROW WHEN (NEW.amount < 0 AND NEW.type = 'usage') EXECUTE FUNCTION claim_auto_recharge();
