import { useEffect, useState } from 'react';

export default function WeeklySummary() {
  const [stats, setStats] = useState(null);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = async () => {
      try {
        const response = await fetch('/api/stats/weekly');
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setStats(await response.json());
      } catch (err) {
        setError('Could not load weekly summary');
      }
    };
    load();
  }, []);

  if (error) return <p>{error}</p>;
  if (!stats) return <p>Loading...</p>;

  return (
    <dl>
      <dt>Steps</dt>
      <dd data-testid="total-steps">{stats.steps}</dd>
      <dt>Calories</dt>
      <dd data-testid="total-calories">{stats.calories}</dd>
      <p>{stats.activeDays} active days</p>
    </dl>
  );
}
