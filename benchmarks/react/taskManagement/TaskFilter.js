import { useState } from 'react';

const STATUSES = [
  { value: 'open', label: 'Open' },
  { value: 'in-progress', label: 'In progress' },
  { value: 'done', label: 'Done' },
];

export default function TaskFilter() {
  const [tasks, setTasks] = useState([]);
  const [active, setActive] = useState(null);
  const [error, setError] = useState('');

  const showStatus = async (status) => {
    setActive(status);
    setError('');
    try {
      const response = await fetch(`/api/tasks?status=${status}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setTasks(await response.json());
    } catch (err) {
      setTasks([]);
      setError('Could not load tasks');
    }
  };

  return (
    <div>
      <div role="group" aria-label="Filter by status">
        {STATUSES.map(({ value, label }) => (
          <button key={value} aria-pressed={active === value} onClick={() => showStatus(value)}>
            {label}
          </button>
        ))}
      </div>
      {error && <p>{error}</p>}
      <ul>
        {tasks.map((task) => (
          <li key={task.id}>{task.title}</li>
        ))}
      </ul>
    </div>
  );
}
