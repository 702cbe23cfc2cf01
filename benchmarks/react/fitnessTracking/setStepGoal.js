import { useState } from 'react';

export default function SetStepGoal() {
  const [target, setTarget] = useState('10000');
  const [message, setMessage] = useState('');

  const saveGoal = async () => {
    try {
      const response = await fetch('/api/goals/steps', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ target: Number(target) }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      setMessage(`Daily goal set to ${data.target} steps`);
    } catch (err) {
      setMessage('Failed to save goal');
    }
  };

  return (
    <div>
      <label htmlFor="step-goal">Daily step goal</label>
      <input
        id="step-goal"
        type="number"
        data-testid="step-goal-input"
        value={target}
        onChange={(e) => setTarget(e.target.value)}
      />
      <button onClick={saveGoal}>Save goal</button>
      {message && <p>{message}</p>}
    </div>
  );
}
