import { useState } from 'react';

export default function LogWorkout() {
  const [activity, setActivity] = useState('');
  const [duration, setDuration] = useState('');
  const [message, setMessage] = useState('');

  const handleSubmit = async (event) => {
    event.preventDefault();
    try {
      const response = await fetch('/api/workouts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ activity, duration: parseInt(duration, 10) }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage('Workout logged');
    } catch (err) {
      setMessage('Failed to log workout');
    }
  };

  return (
    <form onSubmit={handleSubmit}>
      <input placeholder="Activity" value={activity} onChange={(e) => setActivity(e.target.value)} />
      <input
        type="number"
        placeholder="Duration (minutes)"
        value={duration}
        onChange={(e) => setDuration(e.target.value)}
      />
      <button type="submit">Log workout</button>
      {message && <p>{message}</p>}
    </form>
  );
}
