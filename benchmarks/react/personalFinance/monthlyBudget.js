import { useEffect, useState } from 'react';

export default function MonthlyBudget() {
  const [budget, setBudget] = useState(null);
  const [error, setError] = useState('');

  useEffect(() => {
    fetch('/api/budget/current')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then(setBudget)
      .catch(() => setError('Budget unavailable'));
  }, []);

  if (error) return <p>{error}</p>;
  if (!budget) return <p>Loading budget...</p>;

  const remaining = budget.limit - budget.spent;

  return (
    <div>
      <p>{`Spent: $${budget.spent} of $${budget.limit}`}</p>
      <p data-testid="remaining" className={remaining < 0 ? 'over' : 'under'}>
        {`Remaining: $${remaining}`}
      </p>
    </div>
  );
}
